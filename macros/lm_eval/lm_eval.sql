{% macro lm_eval_in_unbuilt_sets(part, file_column='source_file', sha_column='file_sha256') -%}
    {#- A literal filter on the rows of one of the two files of each
        lm-eval set this model has not built yet (`part`: 'results' or
        'samples'): an lm-eval set (int_lm_eval__task_sets) is a results
        file's task and the samples file beside it, its version both files'
        (set_version), so the staging rows of a file are found by the
        file's own path and sha256. For a set_incremental model whose sets
        model is int_lm_eval__task_sets. Like unbuilt(): true on a first
        build or --full-refresh, false when nothing is new. -#}
    {%- set sets = unbuilt_sets() -%}
    {%- if sets is none or sets | length == 0 or not execute -%}
        {{ in_sets(sets, file_column, sha_column) }}
    {%- else -%}
        {%- set query -%}
            select distinct {{ part }}_file, {{ part }}_sha256
            from {{ sets_relation('int_lm_eval__task_sets') }}
            where set_id || ':' || set_version in (
                {%- for version in sets -%}
                    '{{ (version[0] ~ ':' ~ version[1]) | replace("'", "''") }}'
                    {{- ', ' if not loop.last }}
                {%- endfor -%}
            )
            order by 1, 2
        {%- endset -%}
        {{ in_sets(run_query(query).rows | list, file_column, sha_column) }}
    {%- endif -%}
{%- endmacro %}
