/// @file lesson05_team_local.hpp
/// @brief Lesson 5's extra variants: the tile-16 team-local kernel written with
///        the two spellings of team-local memory, for the lesson program to
///        compare on a GPU. Fixed code, never the student's.
#pragma once

namespace course::baseline {

/// C = A x B with 16 x 16 tiles in variables declared in the `teams` region
/// and shared into the `parallel` region (the spelling the lesson teaches;
/// works on every device). Same algorithm and contract as
/// lesson5::matmul_tiled<16>.
void matmul_tiled16_teams_local(int n, const float *A, const float *B, float *C);

/// The same kernel with its tiles placed by
/// `#pragma omp allocate(...) allocator(omp_pteam_mem_alloc)`. On a GPU this is
/// static shared memory; the host device's runtime has no such memory and
/// prints "Allocator omp_pteam_mem_alloc is not available" once per team, so
/// the lesson program runs this variant on GPUs only.
void matmul_tiled16_pteam_alloc(int n, const float *A, const float *B, float *C);

}  // namespace course::baseline
