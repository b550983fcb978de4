{% macro is_blank(expr) -%}
    coalesce(regexp_full_match({{ expr }}, '\s*'), true)
{%- endmacro %}


{% macro nfc(expr) -%}
    {#- Text is matched in Unicode NFC: macOS writes Hangul decomposed (NFD),
        and '선택' is not found in NFD text. Raw history keeps what was
        delivered; staging and the seeds' keywords are normalized where they
        are matched. -#}
    nfc_normalize({{ expr }})
{%- endmacro %}


{% macro contains_any_keyword(text_expr, keyword_relation, keyword_column='keyword') -%}
    {#- The keyword list is an uncorrelated scalar subquery (computed once),
        not a correlated EXISTS: DuckDB plans that as a join over a
        materialized copy of every row, which also stops filters (the sets
        to build) from reaching the table scan. -#}
    coalesce(list_bool_or(list_transform(
        (
            select list({{ nfc('kw.' ~ keyword_column) }})
            from {{ keyword_relation }} as kw
        ),
        lambda keyword: contains({{ text_expr }}, keyword)
    )), false)
{%- endmacro %}
