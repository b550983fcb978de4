{#-
  Write-time checks (docs/testing.md): the rules a model or seed declares in
  its YAML `config.meta` are checked by its materialization on exactly the
  rows it writes, before they are committed (incremental appends) or before
  anyone reads them (tables, seeds: dropped on failure, so the next build
  builds and checks them again). A failure fails the node with a message
  naming the relation, the rule, the number of rows and example keys.

    meta:
      grain: [set_id, line_number]   # unique and not null (the primary key)
      checks:                        # row rules: each must be true for every row
        status_accepted: "status in ('ok', 'partial', 'error', 'empty')"
      table_checks:                  # aggregate rules over the whole relation
        weights_sum_to_one: "abs(sum(weight) - 1) < 1e-9"

  Contracted marts declare not-null and value rules as contract constraints
  instead (DuckDB enforces them on every write); their grain is a meta rule.
-#}

{% macro node_meta() -%}
    {{ return(model.config.get('meta') or {}) }}
{%- endmacro %}


{% macro has_write_checks() -%}
    {%- set meta = node_meta() -%}
    {{ return(meta.get('grain') or meta.get('checks') or meta.get('table_checks')) }}
{%- endmacro %}


{% macro write_check_failures(rows_relation, target_relation=none) -%}
    {#- The rule failures of the rows in `rows_relation`, as a list of
        messages. With `target_relation`, the grain is checked over the new
        rows together with the rows already in the target that share their
        first grain column (the rows left after replaced sets were deleted),
        so a key can never be written twice. -#}
    {%- set meta = node_meta() -%}
    {%- set grain = meta.get('grain') or [] -%}
    {%- set checks = meta.get('checks') or {} -%}
    {%- set table_checks = meta.get('table_checks') or {} -%}
    {%- set failures = [] -%}
    {%- set names = [] -%}
    {%- set exprs = [] -%}
    {%- if grain -%}
        {%- do names.append('grain_not_null') -%}
        {%- do exprs.append(
            'count_if(' ~ (grain | map('string') | map('trim') | join(' is null or ')) ~ ' is null)'
        ) -%}
    {%- endif -%}
    {%- for name, expr in checks.items() -%}
        {%- do names.append(name) -%}
        {%- do exprs.append('count_if(not coalesce((' ~ expr ~ '), false))') -%}
    {%- endfor -%}
    {%- for name, expr in table_checks.items() -%}
        {%- do names.append(name) -%}
        {%- do exprs.append('case when coalesce((' ~ expr ~ '), false) then 0 else 1 end') -%}
    {%- endfor -%}
    {%- if exprs -%}
        {%- set query -%}
            select
            {%- for expr in exprs %}
                {{ expr }} as c{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
            from {{ rows_relation }}
        {%- endset -%}
        {%- set counts = run_query(query).rows[0] -%}
        {%- for name in names -%}
            {%- set n = counts[loop.index0] | int -%}
            {%- if n > 0 -%}
                {%- if name in table_checks -%}
                    {%- do failures.append(
                        'rule ' ~ name ~ ' is false: ' ~ table_checks[name]
                    ) -%}
                {%- else -%}
                    {%- set expr = checks.get(name) or ('not (' ~ (grain | join(' is null or ')) ~ ' is null)') -%}
                    {%- do failures.append(
                        n ~ ' row(s) break rule ' ~ name ~ ' (' ~ expr ~ ')'
                        ~ write_check_examples(rows_relation, expr, grain)
                    ) -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if grain -%}
        {%- set key = grain | join(', ') -%}
        {%- set query -%}
            select {{ key }}, count(*) as n_rows, count(*) over () as n_keys
            from (
                select {{ key }} from {{ rows_relation }}
                {%- if target_relation is not none %}
                union all
                select {{ key }} from {{ target_relation }}
                where {{ grain[0] }} in (select {{ grain[0] }} from {{ rows_relation }})
                {%- endif %}
            )
            group by all
            having count(*) > 1
            order by all
            limit 3
        {%- endset -%}
        {%- set duplicates = run_query(query) -%}
        {%- if duplicates.rows | length > 0 -%}
            {%- set examples = [] -%}
            {%- for row in duplicates.rows -%}
                {%- set parts = [] -%}
                {%- for column in grain -%}
                    {%- do parts.append(column ~ '=' ~ row[loop.index0]) -%}
                {%- endfor -%}
                {%- do examples.append('(' ~ parts | join(', ') ~ ') x' ~ row[grain | length]) -%}
            {%- endfor -%}
            {%- do failures.append(
                duplicates.rows[0][grain | length + 1] ~ ' key(s) of the grain ('
                ~ key ~ ') occur more than once, e.g. ' ~ examples | join('; ')
            ) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return(failures) }}
{%- endmacro %}


{% macro write_check_examples(rows_relation, expr, grain) -%}
    {#- Up to three rows breaking `expr`, named by their grain (or their
        first columns when the node has no grain). -#}
    {%- set columns = grain if grain else ['*'] -%}
    {%- set query -%}
        select {{ columns | join(', ') }}
        from {{ rows_relation }}
        where not coalesce(({{ expr }}), false)
        limit 3
    {%- endset -%}
    {%- set result = run_query(query) -%}
    {%- set examples = [] -%}
    {%- for row in result.rows -%}
        {%- set parts = [] -%}
        {%- for name in result.column_names[:4] -%}
            {%- do parts.append(name ~ '=' ~ row[loop.index0]) -%}
        {%- endfor -%}
        {%- do examples.append('(' ~ parts | join(', ') ~ ')') -%}
    {%- endfor -%}
    {{ return(', e.g. ' ~ examples | join('; ') if examples else '') }}
{%- endmacro %}


{% macro raise_write_check_failures(failures, relation) -%}
    {%- if failures -%}
        {{ exceptions.raise_database_error(
            'write-time check failed on ' ~ relation ~ ': ' ~ failures | join('; ')
        ) }}
    {%- endif -%}
{%- endmacro %}

{% macro log_rejected_input(rejected_files, rejected_rows) -%}
    {#- One line per rejected file in dbt's output ("rejected input: <file>:
        <reason>"), read when the test assert_no_rejected_input runs (its
        models are built by then): the latest observation of a file is a
        rejection, or a current set has rejected rows. Only when tests run
        (build, test): `dbt docs generate` and `dbt compile` compile the
        test too, and a catalogue is no verdict on the night's input. -#}
    {%- if execute and flags.WHICH in ('build', 'test', 'retry') -%}
        {%- set found = run_query(
            "select source_file, 'file rejected: ' || reject_reason from "
            ~ rejected_files ~ " where is_latest union all "
            ~ "select source_file, count(*) || ' row(s) rejected' from "
            ~ rejected_rows ~ " where is_current group by source_file order by 1"
        ) -%}
        {%- for row in found.rows -%}
            {%- do log('rejected input: ' ~ row[0] ~ ': ' ~ row[1], info=True) -%}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}
