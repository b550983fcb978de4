{#-
  Set-grained incremental models: a set is rebuilt only when its current
  file version is not yet in the model. Rows of versions that are no longer
  current are deleted first (pre-hook), so a replaced file replaces its set.
-#}

{% macro delete_replaced_sets() -%}
    {%- if is_incremental() -%}
        delete from {{ this }} as built
        where not exists (
            select 1
            from {{ ref('int_sets__current') }} as cur
            where
                cur.set_id = built.set_id
                and cur.file_sha256 = built.file_sha256
        )
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}


{% macro is_unbuilt_set(set_column, sha_column) -%}
    {#- Pass qualified column names: inside the subquery a bare set_id is the built row's. -#}
    {%- if is_incremental() -%}
        not exists (
            select 1
            from {{ this }} as built
            where
                built.set_id = {{ set_column }}
                and built.file_sha256 = {{ sha_column }}
        )
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}
