{#- @check evaluation helpers (SPEC 4.2). Each takes SQL expressions and
    returns a boolean / text / double expression that never raises. -#}

{% macro recruit_json_text(json_expr) -%}
    {#- A JSON value as comparison text: a string unquoted, anything else as
        its minified JSON text (true, 4.5, [1,2], {"a":1}). -#}
    case json_type(({{ json_expr }}))
        when 'VARCHAR' then ({{ json_expr }}) ->> '$'
        else json(({{ json_expr }}))::varchar
    end
{%- endmacro %}


{% macro recruit_json_number(json_expr, allow_numeric_string=true) -%}
    {#- A finite JSON number as double; with allow_numeric_string, a JSON
        string holding a plain decimal number too (agents often stringify
        numbers). Null for anything else (NaN, Infinity, 1e309 included). -#}
    case
        when json_type(({{ json_expr }})) in ('BIGINT', 'UBIGINT', 'DOUBLE')
            then {{ json_finite_number(json_expr) }}
        {%- if allow_numeric_string %}
        when
            json_type(({{ json_expr }})) = 'VARCHAR'
            and regexp_full_match(
                trim(({{ json_expr }}) ->> '$'),
                '-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?'
            )
            and isfinite(try_cast(trim(({{ json_expr }}) ->> '$') as double))
            then try_cast(trim(({{ json_expr }}) ->> '$') as double)
        {%- endif %}
    end
{%- endmacro %}


{% macro recruit_check_compare(op, actual_number, actual_text, expected_number, expected_text) -%}
    {#- `actual op expected`: numeric when both sides are numbers, else text. -#}
    coalesce(
        case
            when {{ actual_number }} is not null and {{ expected_number }} is not null
                then {{ actual_number }} {{ op }} {{ expected_number }}
            else {{ actual_text }} {{ op }} {{ expected_text }}
        end,
        false
    )
{%- endmacro %}


{% macro recruit_check_equals(actual_number, actual_text, expected_number, expected_text) -%}
    {{ recruit_check_compare('=', actual_number, actual_text, expected_number, expected_text) }}
{%- endmacro %}


{% macro recruit_json_entries(json_expr) -%}
    {#- The children of a JSON container as a list of {key, value}: object
        entries (key = the key), array elements (key = null). Null for
        scalars and for objects with duplicated keys (not a valid map). -#}
    case json_type(({{ json_expr }}))
        when 'OBJECT'
            then map_entries(
                json_transform(({{ json_expr }}), '"MAP(VARCHAR, JSON)"')
            )
        when 'ARRAY'
            then list_transform(
                json_transform(({{ json_expr }}), '["JSON"]'),
                lambda a: {'key': cast(null as varchar), 'value': a}
            )
    end
{%- endmacro %}
