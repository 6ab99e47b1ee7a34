"""The course's own CSV tables outside report/ (lessons/goals.csv,
lessons/kernels.csv): read once here, with the header checked, so that each
table's module checks only its own fields."""
from __future__ import annotations

import csv


def table_lines(path, columns):
    """(where, line) for each line of the CSV table at @p path, where is `path:line` for messages;
    ValueError when the header is not @p columns (OSError when the file cannot be read)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns:
            raise ValueError(f"{path}: the header must be {','.join(columns)}, not "
                             f"{','.join(reader.fieldnames or [])}")
        return [(f"{path}:{reader.line_num}", line) for line in reader]
