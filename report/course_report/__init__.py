"""The course report's parts (report/report.py runs them in order):

- schema.py   the row columns, the columns the report adds, the ceilings' names
- run.py      each program's description (--describe), running it, its rows
- analyse.py  the ceilings measured, each row's % of its ceiling and speedup
- render.py   report.md and report.csv
- plots.py    the PNG figures (plot_base.py, plot_summary.py, plot_kinds.py)
"""
