{#- Each macro takes a JSON expression (e.g. "raw_doc -> '$.error'") and wraps
    it in parentheses: `->` binds looser than IS / comparison operators. -#}

{% macro json_array_length_or_zero(json_expr) -%}
    case json_type(({{ json_expr }}))
        when 'ARRAY' then json_array_length(({{ json_expr }}))
        when 'OBJECT' then 1
        else 0
    end
{%- endmacro %}


{% macro json_finite_number(json_expr) -%}
    {#- A JSON number as double; null for anything else, and for the
        non-finite values DuckDB's JSON reader accepts as numbers (NaN,
        Infinity, and 1e309, which overflows a double): a non-finite value
        is not a number here, so it never reaches a cast to DECIMAL. -#}
    case
        when json_type(({{ json_expr }})) in ('BIGINT', 'UBIGINT', 'DOUBLE')
            and isfinite(({{ json_expr }})::double)
            then ({{ json_expr }})::double
    end
{%- endmacro %}


{% macro json_nonneg_number(json_expr) -%}
    {#- A finite, non-negative JSON number as double; null otherwise. -#}
    case
        when {{ json_finite_number(json_expr) }} >= 0
            then ({{ json_expr }})::double
    end
{%- endmacro %}


{% macro json_is_truthy(json_expr) -%}
    {#- Present and not null / false / blank (SPEC 3.2 raw.error). The strings
        'false' and 'null' count as absent too: exporters stringify them. -#}
    case
        when ({{ json_expr }}) is null then false
        when json_type(({{ json_expr }})) = 'NULL' then false
        when json_type(({{ json_expr }})) = 'BOOLEAN'
            then ({{ json_expr }})::boolean
        when json_type(({{ json_expr }})) = 'VARCHAR'
            then not (
                {{ is_blank("(" ~ json_expr ~ ") ->> '$'") }}
                or lower(trim(({{ json_expr }}) ->> '$')) in ('false', 'null')
            )
        else true
    end
{%- endmacro %}


{% macro epoch_timestamp(seconds_expr) -%}
    {#- Epoch seconds (a double) as a timestamp with time zone; null past
        the years 1 to 9999, where to_timestamp raises a conversion error:
        one absurd date must not stop the night. -#}
    case
        when ({{ seconds_expr }}) between -62135596800 and 253402300799
            then to_timestamp(({{ seconds_expr }}))
    end
{%- endmacro %}


{% macro json_bigint(json_expr) -%}
    {#- A finite JSON number as the bigint it casts to; null for anything
        else and past what a bigint holds (where a cast raises). -#}
    try_cast({{ json_finite_number(json_expr) }} as bigint)
{%- endmacro %}
