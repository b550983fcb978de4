{#-
  Set-grained incremental models (materialized='set_incremental'): a set is
  built only when its current version is not yet in the model, and the rows
  of versions that are no longer current (a replaced or withdrawn file) are
  deleted by the materialization before the new sets are appended. The
  model is a plain select; it names its set configuration and reads each
  set-grained input through unbuilt():

      {{ config(materialized='set_incremental', kind='resume_agent') }}
      with items as (
          select * from {{ unbuilt(ref('resume_item_scores')) }}
      ), ...

  Configuration (all optional): `kind` (the sets of one input kind, column
  kind of the sets model), `sets_model` (the model listing the current sets,
  default int_sets__current: one set per file; e.g.
  int_engagement__runs_current for engagement runs), `version_column` (the
  version's name in sets_model, default file_sha256) and
  `built_version_column` (its name in this model, default version_column).
  The sets model must be upstream of the model (checked when it compiles).

  The sets to build are computed when the model is compiled (run_query,
  once per model) and put in the SQL as literals: a literal filter is pushed
  down to the table scans (row groups of other sets are skipped by their
  statistics), a subquery is not. So a nightly build reads the new sets
  only, whatever the history.
-#}

{% macro set_grain() -%}
    {#- The set configuration of the model being compiled or run. -#}
    {%- set version_column = config.get('version_column') or 'file_sha256' -%}
    {{ return({
        'kind': config.get('kind') or none,
        'sets_model': config.get('sets_model') or 'int_sets__current',
        'version_column': version_column,
        'built_version_column': config.get('built_version_column') or version_column,
    }) }}
{%- endmacro %}


{% macro sets_relation(sets_model) -%}
    {#- The relation of `sets_model`, which must be upstream of this model:
        found in the graph rather than by ref(), so the model needs no
        `-- depends_on:` comment (its inputs already order the DAG). -#}
    {%- set unique_id = 'model.' ~ project_name ~ '.' ~ sets_model -%}
    {%- set node = graph.nodes.get(unique_id) -%}
    {%- if node is none or not is_upstream(unique_id) -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ' reads its sets from ' ~ sets_model ~ ', which is not upstream of it:'
            ~ ' ref() an input built from ' ~ sets_model
        ) }}
    {%- endif -%}
    {{ return(api.Relation.create(
        database=node.database, schema=node.schema, identifier=node.alias or node.name
    )) }}
{%- endmacro %}


{% macro is_upstream(unique_id) -%}
    {#- Whether `unique_id` is an ancestor of this model in dbt's graph. -#}
    {%- set queue = model.depends_on.nodes | list -%}
    {%- set seen = {} -%}
    {%- for node_id in queue if node_id not in seen -%}
        {%- do seen.update({node_id: true}) -%}
        {%- if node_id in graph.nodes -%}
            {%- do queue.extend(graph.nodes[node_id].depends_on.nodes) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(unique_id in seen) }}
{%- endmacro %}


{% macro delete_replaced_sets() -%}
    {#- The statement set_incremental runs before it appends: deletes the
        rows of set versions that are no longer current in the sets model
        (a replaced file's old version, a withdrawn file's). -#}
    {%- set grain = set_grain() -%}
    delete from {{ this }} as built
    where not exists (
        select 1
        from {{ sets_relation(grain.sets_model) }} as cur
        where
            cur.set_id = built.set_id
            and cur.{{ grain.version_column }} = built.{{ grain.built_version_column }}
    )
{%- endmacro %}


{% macro unbuilt_sets(sets_where=none, built_where=none) -%}
    {#- The current (set_id, version) of the model's sets (set_grain) not
        yet built by this model, as a list; none on a first build or
        --full-refresh (every set). Built = rows of the version are in the
        model, or the model processed the version and it gave no row (the
        ledger build_state.built_sets, written by the materialization: a set
        with no row is not rebuilt every night). Asked once per model and
        arguments, when the model is compiled (before the materialization
        deletes replaced sets and runs pre-hooks).
        `sets_where`: a further condition on the sets model's columns (as
        kind). `built_where`: which built rows count as built (e.g. rows
        scored with the rules in force; the ledger is then not used): rows a
        pre-hook deletes must fail it.
        When every input has the data version it had at the model's last
        success (inputs_unchanged), the answer is the empty list without a
        query: that success built every set then current, and what is
        current follows from the inputs. -#}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if 'nodes' not in graph -%}
        {#- a unit test compiles its model without the project graph: every
            set, as a first build (no set when is_incremental is mocked) -#}
        {{ return([] if is_incremental() else none) }}
    {%- endif -%}
    {%- if model.config.materialized != 'set_incremental' -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ' reads unbuilt sets but is not materialized as set_incremental'
        ) }}
    {%- endif -%}
    {#- one entry per model and arguments, read by record_built_sets after
        the model ran -#}
    {%- set entries = graph.setdefault('agent_eval_set_models', {}) -%}
    {%- set entry = entries.get(model.unique_id) -%}
    {%- if entry is none or entry.compiled_by != invocation_id -%}
        {%- set entry = {'compiled_by': invocation_id, 'calls': {}} -%}
        {%- do entries.update({model.unique_id: entry}) -%}
    {%- endif -%}
    {%- set key = (sets_where or '') ~ '|' ~ (built_where or '') -%}
    {%- if key in entry.calls -%}
        {{ return(entry.calls[key].sets) }}
    {%- endif -%}
    {%- set grain = set_grain() -%}
    {%- set info = {
        'kind': grain.kind,
        'sets_where': sets_where,
        'sets_model': sets_relation(grain.sets_model),
        'version_column': grain.version_column,
        'built_version_column': grain.built_version_column,
        'use_ledger': built_where is none,
        'sets': none,
    } -%}
    {%- do entry.calls.update({key: info}) -%}
    {%- if not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {#- inputs as the model's last success left them: no set to build, and
        no query to say so (the nightly build with nothing new) -#}
    {%- if inputs_unchanged() -%}
        {%- do info.update({'sets': []}) -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set query -%}
        select set_id, {{ info.version_column }}
        from {{ info.sets_model }}
        where {{ sets_condition(info.kind, sets_where) }}
        except
        -- distinct first: the set operation then hashes the few built
        -- versions, not every row (at 10M rows a plain except ran out of
        -- memory at the 1 GB budget)
        select distinct set_id, {{ info.built_version_column }}
        from {{ this }}
        {%- if built_where %}
        where {{ built_where }}
        {%- else %}
        except
        select set_id, version
        from {{ build_state_relation().incorporate(path={'identifier': 'built_sets'}) }}
        where unique_id = '{{ model.unique_id }}'
        {%- endif %}
        order by 1, 2
    {%- endset -%}
    {%- set sets = run_query(query).rows | list -%}
    {%- do info.update({'sets': sets}) -%}
    {{ return(sets) }}
{%- endmacro %}


{% macro unbuilt(relation, version_column=none, set_column='set_id', sets_where=none, built_where=none) -%}
    {#- `relation` (a ref) restricted to the sets this model has not built
        yet: `(select * from relation where <literal filter>)`, to read
        from in an import CTE. `version_column`: the input's version column
        (default the model's built_version_column); `sets_where` and
        `built_where` as in unbuilt_sets. -#}
    {%- set sets = unbuilt_sets(sets_where, built_where) -%}
    {%- if execute and version_column is none -%}
        {%- set version_column = set_grain().built_version_column -%}
    {%- endif -%}
    (select * from {{ relation }} where {{ in_sets(sets, set_column, version_column) }})
{%- endmacro %}


{% macro record_built_sets(full) -%}
    {#- After a set_incremental model committed: the set versions it was
        asked to build that gave no row are recorded as built (the ledger
        unbuilt_sets reads), so they are not rebuilt every night. Versions
        with rows need no entry (their rows say so), and must have none: when
        a replaced version's rows are deleted and the version comes back
        (restored bytes), it must be built again. `full`: the model was
        (re)created from every current set. -#}
    {%- set entry = graph.get('agent_eval_set_models', {}).get(model.unique_id) -%}
    {%- if entry is none or entry.compiled_by != invocation_id -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set ledger = build_state_relation().incorporate(path={'identifier': 'built_sets'}) -%}
    {%- if full -%}
        {%- do run_query('delete from ' ~ ledger ~ " where unique_id = '" ~ model.unique_id ~ "'") -%}
    {%- endif -%}
    {%- for info in entry.calls.values() if info.use_ledger and (full or info.sets) -%}
    {%- set query -%}
        insert into {{ ledger }}
        select '{{ model.unique_id }}', versions.set_id, versions.version
        from (
            {%- if full %}
            select set_id, {{ info.version_column }} as version
            from {{ info.sets_model }}
            where {{ sets_condition(info.kind, info.sets_where) }}
            {%- else %}
            values
            {%- for version in info.sets %}
                ('{{ version[0] | replace("'", "''") }}', '{{ version[1] }}')
                {{- ',' if not loop.last }}
            {%- endfor %}
            {%- endif %}
        ) as versions (set_id, version)
        where not exists (
            select 1
            from (
                -- the built versions, not every row (as in unbuilt_sets)
                select distinct set_id, {{ info.built_version_column }}
                from {{ this }}
            ) as built
            where
                built.set_id = versions.set_id
                and built.{{ info.built_version_column }} = versions.version
        )
    {%- endset -%}
    {%- do run_query(query) -%}
    {%- endfor -%}
    {%- do adapter.commit() -%}
{%- endmacro %}


{% macro sets_condition(kind, sets_where) -%}
    {#- The sets of a sets model that unbuilt_sets considers: of `kind`,
        and matching `sets_where`; every set when both are none. -#}
    {%- if kind -%}kind = '{{ kind }}'{%- else -%}true{%- endif -%}
    {%- if sets_where %} and ({{ sets_where }}){%- endif -%}
{%- endmacro %}


{% macro set_filter_start() -%}
    /* agent_eval:set_filter[ */
{%- endmacro %}


{% macro set_filter_end() -%}
    /* ]agent_eval:set_filter */
{%- endmacro %}


{% macro in_sets(sets, set_column='set_id', sha_column='file_sha256') -%}
    {#- A literal filter on the (set_id, file_sha256) pairs of `sets` (from
        unbuilt_sets): true when sets is none, false when it is empty.
        Between set_filter markers: the node's reuse fingerprint leaves the
        filter out (it says which sets are new, which the inputs' data
        versions already say), so the build after a creation does not
        execute the model again only because its filter went from "every
        set" to "none". -#}
    {{ set_filter_start() }}
    {%- if sets is none -%}
        true
    {%- elif sets | length == 0 -%}
        false /* agent_eval:no_sets_to_build */
    {%- else -%}
        /* agent_eval:sets_to_build */ ({{ sha_column }} in (
        {%- for version in sets -%}
            '{{ version[1] }}'{{ ', ' if not loop.last }}
        {%- endfor -%}
        ) and {{ set_column }} in (
        {%- for version in sets -%}
            '{{ version[0] | replace("'", "''") }}'{{ ', ' if not loop.last }}
        {%- endfor -%}
        ))
    {%- endif -%}
    {{ set_filter_end() }}
{%- endmacro %}


{% macro is_unprocessed_version(candidates, source_column='source_file', sha_column='sha256') -%}
    {#- Version-grained incremental models (one file version at a time): a
        literal filter on the versions of `candidates` (a query returning
        source_file, sha256) that this model does not hold yet. true on a
        first build or --full-refresh, false when nothing is new. The model
        must name its version columns source_file and sha256. Between
        set_filter markers, as in_sets. -#}
    {{ set_filter_start() }}
    {%- if is_incremental() -%}
        {%- set versions = [] -%}
        {%- if execute -%}
            {%- set query -%}
                {{ candidates }}
                except
                select source_file, sha256
                from {{ this }}
            {%- endset -%}
            {%- set versions = run_query(query).rows | list -%}
        {%- endif -%}
        {%- if versions | length == 0 -%}
            false /* agent_eval:no_sets_to_build */
        {%- else -%}
            /* agent_eval:sets_to_build */ ({{ sha_column }} in (
            {%- for version in versions -%}
                '{{ version[1] }}'{{ ', ' if not loop.last }}
            {%- endfor -%}
            ) and {{ source_column }} in (
            {%- for version in versions -%}
                '{{ version[0] | replace("'", "''") }}'{{ ', ' if not loop.last }}
            {%- endfor -%}
            ))
        {%- endif -%}
    {%- else -%}
        true
    {%- endif -%}
    {{ set_filter_end() }}
{%- endmacro %}


{% macro delete_replaced_file_versions(
    sets_model='int_sets__current', kind=none
) -%}
    {#- Pre-hook of a version-grained incremental model whose rows carry
        their file (source_file, sha256): deletes the rows of file versions
        that are no longer current in `sets_model` (of `kind`). A no-op
        (select 1) on a first build or --full-refresh. -#}
    {%- if is_incremental() -%}
        delete from {{ this }} as built
        where not exists (
            select 1
            from {{ ref(sets_model) }} as cur
            where
                cur.set_id = built.source_file
                and cur.file_sha256 = built.sha256
                {%- if kind %}
                and cur.kind = '{{ kind }}'
                {%- endif %}
        )
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}
