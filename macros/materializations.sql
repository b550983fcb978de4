{#-
  The project's materializations. Two things are added to dbt-duckdb's:

  1. Reuse (macros/build_state.sql): a node whose inputs did not change
     since it last succeeded is not executed again (dbt prints REUSED).
  2. Write-time checks (macros/write_checks.sql): the grain and row rules a
     node declares in `config.meta` are checked on the rows it writes.

  Creating a relation (first build, --full-refresh) is left to dbt-duckdb's
  own materializations, so contracts and constraints work as documented;
  an incremental model's nightly append is done here: the new rows are
  computed once into a temporary table, checked, and appended in the same
  transaction as the deletion of the sets they replace.
-#}

{% macro reused(relation_type) -%}
    {#- a state recorded without its inputs' digest (a warehouse built
        before inputs_version was kept) gets it: the fingerprint matched, so
        the inputs are as they were -#}
    {%- set previous = build_states().states.get(model.unique_id) -%}
    {%- if previous[2] != node_input_versions().version -%}
        {%- do record_node_state(previous[0], previous[1]) -%}
    {%- endif -%}
    {%- do store_result('main', response='REUSED', agate_table=none) -%}
    {{ return({'relations': [this.incorporate(type=relation_type)]}) }}
{%- endmacro %}


{% macro check_created_relation(relation, drop_on_failure=true) -%}
    {#- After dbt-duckdb created and committed `relation`: check every row.
        A failing node records no state, so the next build executes it
        again; a relation that would not be rebuilt whole by that build (an
        incremental model, which appends) or that its readers must not see
        (a seed) is dropped so it is created and checked again. A table is
        rebuilt whole anyway and is kept, so the operator's summary can
        still read it (nothing is published when dbt failed). -#}
    {%- if has_write_checks() -%}
        {%- set failures = write_check_failures(relation) -%}
        {%- if failures -%}
            {%- if drop_on_failure -%}
                {%- do adapter.drop_relation(relation) -%}
                {%- do adapter.commit() -%}
            {%- endif -%}
            {%- do raise_write_check_failures(failures, relation) -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{% materialization view, adapter='duckdb' %}
    {%- set state = node_reuse_state() -%}
    {%- if state.reusable and load_cached_relation(this) is not none -%}
        {{ return(reused('view')) }}
    {%- endif -%}
    {%- set result = dbt.materialization_view_default() -%}
    {%- do record_node_state(state.fingerprint, state.fingerprint) -%}
    {{ return(result) }}
{% endmaterialization %}


{% materialization table, adapter='duckdb', supported_languages=['sql'] %}
    {%- set state = node_reuse_state() -%}
    {%- if state.reusable and load_cached_relation(this) is not none -%}
        {{ return(reused('table')) }}
    {%- endif -%}
    {%- set result = dbt.materialization_table_duckdb() -%}
    {%- do check_created_relation(this.incorporate(type='table'), drop_on_failure=false) -%}
    {%- do record_node_state(state.fingerprint, state.fingerprint) -%}
    {{ return(result) }}
{% endmaterialization %}


{% materialization incremental, adapter='duckdb', supported_languages=['sql'] %}
    {{ return(incremental_append()) }}
{% endmaterialization %}


{% materialization set_incremental, adapter='duckdb', supported_languages=['sql'] %}
    {#- A set-grained model (macros/incremental_sets.sql): an incremental
        model that deletes the rows of replaced and withdrawn set versions
        itself, before it appends the sets it has not built yet. -#}
    {%- if 'agent_eval:set_filter' not in compiled_code -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ' is set_incremental but reads no input through unbuilt(): '
            ~ 'every build would append every set again'
        ) }}
    {%- endif -%}
    {{ return(incremental_append(set_grained=true)) }}
{% endmaterialization %}


{% macro incremental_append(set_grained=false) -%}
    {#- The incremental materializations' work: creation by dbt-duckdb, or
        the nightly append (with `set_grained`, after deleting replaced
        sets). -#}
    {%- set state = node_reuse_state() -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- if state.reusable and existing is not none -%}
        {{ return(reused('table')) }}
    {%- endif -%}

    {%- if existing is none or should_full_refresh() or existing.is_view -%}
        {%- set result = dbt.materialization_incremental_duckdb() -%}
        {%- do check_created_relation(target_relation) -%}
        {%- do record_built_sets(full=true) -%}
        {%- do record_node_state(state.fingerprint, local_md5(state.fingerprint ~ invocation_id)) -%}
        {{ return(result) }}
    {%- endif -%}

    {#- The nightly append. Every set filter of the model empty (macros/
        incremental_sets.sql): no new row, only the deletions. -#}
    {%- set nothing_to_build = 'agent_eval:no_sets_to_build' in compiled_code
        and 'agent_eval:sets_to_build' not in compiled_code -%}
    {#- an append with no pre-hook (no deletion) that appended no row left
        the table as it was, whatever its code (a log stamped with the
        build's id): its readers, and the publish, see no change -#}
    {%- set append_only = config.get('incremental_strategy') == 'append' and not pre_hooks -%}
    {%- set counted = nothing_to_build or append_only -%}
    {%- set n_before = relation_row_count(target_relation) if counted else none -%}
    {%- set temp_ref = make_temp_relation(target_relation).include(database=false, schema=false) -%}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {%- if set_grained -%}
        {% call statement('delete_replaced_sets') -%}
            {{ delete_replaced_sets() }}
        {%- endcall %}
    {%- endif -%}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {%- if nothing_to_build -%}
        {% call statement('main') -%}
            select 0 as n_appended
        {%- endcall %}
    {%- else -%}
        {%- if config.get('contract', {}).enforced -%}
            {{ get_assert_columns_equivalent(compiled_code) }}
        {%- endif -%}
        {% call statement('new_rows') -%}
            create temporary table {{ temp_ref }} as (
                {{ compiled_code }}
            )
        {%- endcall %}
        {%- do incremental_columns_match(temp_ref, target_relation) -%}
        {%- do append_checked_rows(temp_ref, target_relation) -%}
    {%- endif -%}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {%- do adapter.commit() -%}
    {%- if not nothing_to_build -%}
        {%- do drop_new_rows(temp_ref) -%}
    {%- endif -%}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {%- do record_built_sets(full=false) -%}

    {%- if counted and relation_row_count(target_relation) == n_before -%}
        {%- set version = state.previous_version or state.fingerprint -%}
    {%- else -%}
        {%- set version = local_md5(state.fingerprint ~ invocation_id) -%}
    {%- endif -%}
    {%- do record_node_state(state.fingerprint, version) -%}
    {{ return({'relations': [target_relation]}) }}
{%- endmacro %}


{% macro append_checked_rows(new_rows, target_relation) -%}
    {#- Check the rows of `new_rows` (meta rules, and the grain against the
        rows already in the target), then append them by name: the node's
        main statement, inside the caller's transaction. -#}
    {%- do raise_write_check_failures(write_check_failures(new_rows, target_relation), target_relation) -%}
    {% call statement('main') -%}
        insert into {{ target_relation }} by name
        select * from {{ new_rows }}
    {%- endcall %}
{%- endmacro %}


{% macro drop_new_rows(new_rows) -%}
    {% call statement('drop_new_rows', auto_begin=false) -%}
        drop table if exists {{ new_rows }}
    {%- endcall %}
{%- endmacro %}


{% macro incremental_columns_match(new_relation, target_relation) -%}
    {#- on_schema_change = fail, as dbt's: the new rows must have exactly the
        target's columns (names; types are cast by the insert). -#}
    {%- set query -%}
        select column_name from (describe {{ new_relation }})
    {%- endset -%}
    {%- set new_columns = run_query(query).columns[0].values() | map('lower') | list -%}
    {%- set old_columns = adapter.get_columns_in_relation(target_relation)
        | map(attribute='name') | map('lower') | list -%}
    {%- if new_columns | sort != old_columns | sort -%}
        {{ exceptions.raise_compiler_error(
            'The source and target schemas on this incremental model are out of sync: '
            ~ target_relation ~ ' has columns ' ~ (old_columns | sort | join(', '))
            ~ ', the model selects ' ~ (new_columns | sort | join(', '))
            ~ '. Rebuild it with --full-refresh.'
        ) }}
    {%- endif -%}
{%- endmacro %}


{% materialization seed, adapter='duckdb' %}
    {%- set state = node_reuse_state() -%}
    {%- if state.reusable and load_cached_relation(this) is not none -%}
        {%- do store_result('agate_table', response='OK', agate_table=none) -%}
        {{ return(reused('table')) }}
    {%- endif -%}
    {%- set result = dbt.materialization_seed_default() -%}
    {%- do check_created_relation(this.incorporate(type='table')) -%}
    {%- do record_node_state(state.fingerprint, state.fingerprint) -%}
    {{ return(result) }}
{% endmaterialization %}


{% materialization test, adapter='duckdb' %}
    {%- set state = node_reuse_state() -%}
    {%- if state.reusable -%}
        {% call statement('main', fetch_result=True) -%}
            select 0 as failures, false as should_warn, false as should_error
        {%- endcall %}
        {{ return({'relations': []}) }}
    {%- endif -%}
    {%- set result = dbt.materialization_test_default() -%}
    {%- set table = load_result('main').table -%}
    {%- if table.rows | length == 1 and (table.rows[0][0] | int) == 0 -%}
        {%- do record_node_state(state.fingerprint, state.fingerprint) -%}
    {%- endif -%}
    {{ return(result) }}
{% endmaterialization %}


{% materialization raw_history, adapter='duckdb', supported_languages=['python'] %}
    {#- The Python loaders: append-only raw history. Always executed (they
        look at the drops folder); never rebuilt (--full-refresh keeps it:
        it is the record). Their data version is their row count. The new
        rows are checked (meta rules) before they are appended. -#}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- if model.depends_on.nodes -%}
        {#- a loader of one kind loads the files the manifest lists: nothing
            to do when the manifest did not change -#}
        {%- set state = node_reuse_state() -%}
        {%- if state.reusable and existing is not none -%}
            {{ return(reused('table')) }}
        {%- endif -%}
    {%- endif -%}
    {#- the build's id, known when it runs (a config value would be the id
        of the build that parsed the project) -#}
    {%- set code = compiled_code ~ '\n\nAGENT_EVAL_INVOCATION_ID = "' ~ invocation_id ~ '"\n' -%}
    {%- if existing is none -%}
        {% call statement('main', language='python') -%}
            {{- create_table_as(False, target_relation, code, 'python') }}
        {%- endcall %}
        {%- do check_created_relation(target_relation) -%}
    {%- else -%}
        {%- set temp_relation = make_temp_relation(target_relation) -%}
        {% call statement('load', language='python') -%}
            {{- create_table_as(True, temp_relation, code, 'python') }}
        {%- endcall %}
        {%- set temp_ref = temp_relation.include(database=false, schema=false) -%}
        {%- do add_new_columns(temp_ref, target_relation) -%}
        {%- do append_checked_rows(temp_ref, target_relation) -%}
    {%- endif -%}
    {%- do adapter.commit() -%}
    {%- if existing is not none -%}
        {%- do drop_new_rows(temp_ref) -%}
    {%- endif -%}
    {%- do record_node_state(
        state.fingerprint if model.depends_on.nodes else 'raw_history',
        'rows:' ~ relation_row_count(target_relation)
    ) -%}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro add_new_columns(new_relation, target_relation) -%}
    {#- Raw history is never rebuilt (on_schema_change append_new_columns): a
        column the loader now writes is added to the table in place. -#}
    {%- set new_columns = run_query('select column_name, column_type from (describe ' ~ new_relation ~ ')') -%}
    {%- set existing = adapter.get_columns_in_relation(target_relation)
        | map(attribute='name') | map('lower') | list -%}
    {%- for row in new_columns.rows if row[0] | lower not in existing -%}
        {%- do run_query('alter table ' ~ target_relation ~ ' add column ' ~ adapter.quote(row[0]) ~ ' ' ~ row[1]) -%}
    {%- endfor -%}
{%- endmacro %}


{% macro is_incremental() -%}
    {#- dbt's is_incremental(), also true for raw history (raw_history). -#}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{ return(
        relation is not none
        and relation.type == 'table'
        and model.config.materialized in ('incremental', 'set_incremental', 'raw_history')
        and not should_full_refresh()
    ) }}
{%- endmacro %}
