"""Excel export of the insurance summary marts (one sheet per mart).

Values are written as the marts hold them; anything that is not a plain
scalar (a list, a map, a JSON value) is written as JSON text, so a workbook
never fails on a nested column (source 004 §8.2: JSON columns forced to
text). Text is made safe for Excel: characters XML cannot hold are removed,
a cell keeps at most 32,767 characters, and text starting with `=` stays text
rather than becoming a formula.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.utils import get_column_letter

from agent_eval import db

EXCEL_CELL_MAX = 32767
TRUNCATED = " …[truncated]"

# (sheet name, query); every query takes the set filter as its only parameter list.
SUMMARY_SHEETS: tuple[tuple[str, str], ...] = (
    ("set_scores", "select * from marts.summary_set_scores {where} order by set_id"),
    ("set_metrics", "select * from marts.summary_set_metrics {where} order by set_id, metric_order"),
    ("case_scores", "select * from marts.summary_case_scores {where} order by set_id, case_index"),
    ("review_queue", "select * from marts.summary_review_queue {where} order by set_id, case_id, metric"),
    (
        "rejected_rows",
        "select * from ops.rejected_rows where kind = 'summary' and is_current {and_where} "
        "order by source_file, line_number",
    ),
)


def excel_value(value: Any) -> Any:
    """A value openpyxl writes safely."""
    if value is None or isinstance(value, (bool, int, float, datetime, date)):
        return value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (list, tuple, dict)):
        value = json.dumps(value, ensure_ascii=False, default=str)
    text = ILLEGAL_CHARACTERS_RE.sub("", str(value))
    if len(text) > EXCEL_CELL_MAX:
        text = text[: EXCEL_CELL_MAX - len(TRUNCATED)] + TRUNCATED
    return text


def export_summary_xlsx(db_path: Path, out_path: Path, set_ids: list[str] | None = None) -> Path:
    """Write the summary marts to one workbook; returns its path."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    params: list[Any] = []
    where = and_where = ""
    if set_ids:
        marks = ", ".join("?" for _ in set_ids)
        where = f"where set_id in ({marks})"
        and_where = f"and source_file in ({marks})"
        params = list(set_ids)
    with duckdb.connect(str(db_path), read_only=True) as con:
        for sheet_name, sql in SUMMARY_SHEETS:
            names, data = db.fetch(con, sql.format(where=where, and_where=and_where), params)
            sheet = workbook.create_sheet(sheet_name)
            sheet.append(names)
            for row in data:
                sheet.append([excel_value(v) for v in row])
            for column in sheet.iter_cols(min_row=2):
                for cell in column:
                    if isinstance(cell.value, str) and cell.value.startswith("="):
                        cell.data_type = "s"  # text, not a formula
            sheet.freeze_panes = "A2"
            for index, name in enumerate(names, start=1):
                sheet.column_dimensions[get_column_letter(index)].width = min(max(len(name) + 2, 10), 40)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    workbook.save(out_path)
    return out_path
