"""Escaping of agent text in markdown tables."""

from agent_eval.report import md_cell


def test_pipes_newlines_and_html_are_escaped():
    assert md_cell("a|b") == "a\\|b"
    assert md_cell("줄1\n줄2\r\n줄3\r줄4") == "줄1<br>줄2<br>줄3<br>줄4"
    assert md_cell("<script>alert('x')</script> & <b>") == "&lt;script&gt;alert('x')&lt;/script&gt; &amp; &lt;b&gt;"
    assert md_cell(None) == ""
    assert md_cell(3) == "3"


def test_a_table_row_with_hostile_text_keeps_its_cell_count():
    hostile = "| 둘 | 셋 |\n| --- |\n<br>"
    row = f"| {md_cell('q1')} | {md_cell(hostile)} |"
    # unescaped pipes would add cells
    assert row.replace("\\|", "").count("|") == 3


def test_backticks_in_free_text_never_open_a_code_span():
    # inside a code span the <br> of a line break would show literally
    assert md_cell("run `ls`\nthen `cat`") == "run \\`ls\\`<br>then \\`cat\\`"
    assert "`" not in md_cell("``` fenced ```").replace("\\`", "")


def test_no_template_puts_a_cell_value_in_a_code_span():
    from agent_eval.report import TEMPLATES

    for template in TEMPLATES.glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        # a cell value is escaped for a table cell: inside a code span its escapes would show
        assert "| cell }}`" not in text, template
