{#-
  Set-grained incremental models: a set is built only when its current
  version is not yet in the model. Rows of versions that are no longer
  current are deleted first (pre-hook), so a replaced file replaces its set.
  By default a set is one file (int_sets__current, version file_sha256);
  a model whose set spans several files passes its own current-sets model
  and version column (e.g. engagement runs: int_engagement__runs_current,
  run_sha256). The model must name that model in a `-- depends_on:` comment.

  The sets to build are computed when the model runs (run_query) and put in
  the SQL as literals: a literal filter is pushed down to the table scans
  (row groups of other sets are skipped by their statistics), a subquery is
  not. So a nightly build reads the new sets only, whatever the history.
-#}

{% macro delete_replaced_sets(
    sets_model='int_sets__current',
    version_column='file_sha256',
    built_version_column=none
) -%}
    {#- `built_version_column`: the version's name in this model when it
        differs from `version_column` (its name in `sets_model`). -#}
    {%- if is_incremental() -%}
        delete from {{ this }} as built
        where not exists (
            select 1
            from {{ ref(sets_model) }} as cur
            where
                cur.set_id = built.set_id
                and cur.{{ version_column }}
                = built.{{ built_version_column or version_column }}
        )
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}


{% macro unbuilt_sets(
    kind=none,
    sets_model='int_sets__current',
    version_column='file_sha256',
    built_where=none,
    built_version_column=none,
    sets_where=none
) -%}
    {#- The current (set_id, version) of `kind` (in `sets_model`) not yet
        built by this model, as a list; none on a first build or
        --full-refresh (every set). Built = rows of the version are in the
        model, or the model processed the version and it gave no row (the
        ledger build_state.built_sets, written by the incremental
        materialization: a set with no row is not rebuilt every night).
        `built_where` limits which built rows count as built (e.g. rows
        scored with the rules in force; the ledger is then not used). It is
        computed when the model is compiled, i.e. before its pre-hooks run:
        a pre-hook that deletes rows must be matched by `built_where`.
        `sets_where` filters `sets_model` like `kind` (a condition on its
        columns); `built_version_column` names the version in this model
        when it differs from its name in `sets_model`. -#}
    {%- if execute -%}
        {#- one entry per call (a model may ask for several kinds), read by
            record_built_sets after the model ran -#}
        {%- set calls = graph.setdefault('agent_eval_set_models', {}) -%}
        {%- if model.unique_id not in calls or calls[model.unique_id].get('compiled_by') != invocation_id -%}
            {%- do calls.update({model.unique_id: {'compiled_by': invocation_id, 'calls': []}}) -%}
        {%- endif -%}
        {%- set info = {
            'kind': kind,
            'sets_where': sets_where,
            'sets_model': ref(sets_model),
            'version_column': version_column,
            'built_version_column': built_version_column or version_column,
            'use_ledger': built_where is none,
            'sets': none,
        } -%}
        {%- do calls[model.unique_id]['calls'].append(info) -%}
    {%- else -%}
        {%- set info = {} -%}
    {%- endif -%}
    {%- if not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set query -%}
        select set_id, {{ version_column }}
        from {{ ref(sets_model) }}
        where {{ sets_condition(kind, sets_where) }}
        except
        -- distinct first: the set operation then hashes the few built
        -- versions, not every row (at 10M rows a plain except ran out of
        -- memory at the 1 GB budget)
        select distinct set_id, {{ built_version_column or version_column }}
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


{% macro record_built_sets(full) -%}
    {#- After an incremental model committed: the set versions it was asked
        to build that gave no row are recorded as built (the ledger
        unbuilt_sets reads), so they are not rebuilt every night. Versions
        with rows need no entry (their rows say so), and must have none: when
        a replaced version's rows are deleted and the version comes back
        (restored bytes), it must be built again. `full`: the model was
        (re)created from every current set. -#}
    {%- set entry = graph.get('agent_eval_set_models', {}).get(model.unique_id) -%}
    {%- if entry is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set ledger = build_state_relation().incorporate(path={'identifier': 'built_sets'}) -%}
    {%- if full -%}
        {%- do run_query('delete from ' ~ ledger ~ " where unique_id = '" ~ model.unique_id ~ "'") -%}
    {%- endif -%}
    {%- for info in entry.calls if info.use_ledger and (full or info.sets) -%}
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


{% macro is_unbuilt_set(
    set_column='set_id',
    sha_column='file_sha256',
    version_column='file_sha256',
    kind=none,
    sets_model='int_sets__current',
    built_where=none,
    built_version_column=none,
    sets_where=none
) -%}
    {#- Literal filter on the sets this model has not built yet (one query).
        `sha_column` is the reading model's version column (qualified when
        needed), `version_column` its name in `sets_model` and (unless
        `built_version_column` says otherwise) in this model. -#}
    {{ in_sets(
        unbuilt_sets(
            kind, sets_model, version_column, built_where,
            built_version_column, sets_where
        ),
        set_column,
        sha_column
    ) }}
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
