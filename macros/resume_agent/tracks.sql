{% macro parse_track(expr) -%}
    try_cast(
        regexp_extract(
            lower(trim({{ expr }})), '^(?:track|t|트랙)?[\s_-]*(\d+)$', 1
        ) as integer
    )
{%- endmacro %}
