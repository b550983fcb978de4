{% macro inspect_value_to_float(value_json) -%}
    {#- Inspect AI's value_to_float (inspect_ai.scorer), in its order: "C"
        1, "P" 0.5, "I" and "N" 0; a number or a boolean as it is; a string
        lowercased: "yes" / "true" 1, "no" / "false" 0, a number's text its
        number; anything else 0 (Inspect warns and gives 0). An unscored
        value (Inspect's bare NaN, kept as the string "NaN" by the reader)
        and a missing value are null: unscored, left out of every metric,
        as Inspect leaves them out. -#}
    case
        when {{ value_json }} is null or json_type({{ value_json }}) = 'NULL'
            then null
        when json_type({{ value_json }}) = 'BOOLEAN'
            then case when ({{ value_json }})::boolean then 1.0 else 0.0 end
        when json_type({{ value_json }}) in ('BIGINT', 'UBIGINT', 'DOUBLE')
            then ({{ value_json }})::double
        when json_type({{ value_json }}) = 'VARCHAR'
            then case
                when ({{ value_json }} ->> '$') = 'C' then 1.0
                when ({{ value_json }} ->> '$') = 'P' then 0.5
                when ({{ value_json }} ->> '$') in ('I', 'N') then 0.0
                when lower(trim({{ value_json }} ->> '$')) in ('yes', 'true')
                    then 1.0
                when lower(trim({{ value_json }} ->> '$')) in ('no', 'false')
                    then 0.0
                when lower(trim({{ value_json }} ->> '$')) in ('nan', '+nan', '-nan')
                    then null
                when isfinite(try_cast(trim({{ value_json }} ->> '$') as double))
                    then try_cast(trim({{ value_json }} ->> '$') as double)
                else 0.0
            end
        else 0.0
    end
{%- endmacro %}


{% macro inspect_reduce(reducer, value) -%}
    {#- Inspect AI's epoch reducers over one sample's values (nulls, the
        unscored, left out): mean (the default), median, mode, max; any
        other reducer is not computed here (null). -#}
    case {{ reducer }}
        when 'mean' then avg({{ value }})
        when 'median' then median({{ value }})
        when 'mode' then mode({{ value }})
        when 'max' then max({{ value }})
    end
{%- endmacro %}
