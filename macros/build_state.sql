{#-
  Reuse of unchanged nodes: cost follows the data
  (docs/decisions/0019-reuse-unchanged-nodes.md).

  Every model, seed and data test records, when it succeeds, a fingerprint
  of what it was computed from: its compiled SQL (or a seed's file
  checksum), its configuration and columns, and the data version of every
  node it reads. At the next build a node whose fingerprint is unchanged and
  whose relation still exists is not executed again: dbt reports it as
  `REUSED`. Its data version stays, so the nodes that read it are reused in
  turn. A build with no new file therefore executes the loaders (which look
  at the drops folder) and nothing else.

  Data version of a node (what its readers see):
  - view, table, seed: its fingerprint (a deterministic function of inputs);
  - incremental model: unchanged when a run changed no row (row count before
    and after equal, and no set to build or an append with no pre-hook),
    else a new value;
  - Python loader (append-only raw history): its row count;
  - a source (the judge's append-only table): its row count, read when a
    node that reads it runs.
  `--full-refresh` or `--vars '{reuse: false}'` executes every node.

  Versions by kind (docs/decisions/0059-versions-by-input-kind.md): a
  shared relation with a column `kind` whose config has
  `meta: {versions_by_kind: true}` (the manifest, the file versions, the
  current sets) also records one version per kind, a digest of its rows
  of that kind, computed when its data version changes. A model of one
  agent (in models/<layer>/<agent>/, agent in var('agents'), and every
  ephemeral model it reads in the same folder) reads only its agent's
  kinds of it (the registry seed's input_kinds): the versions of those
  kinds are in its fingerprint instead of the whole relation's, so a file
  of another agent leaves it reused. Every other reader (shared models,
  data tests) sees the whole version.
-#}

{% macro build_state_relation() -%}
    {{ return(api.Relation.create(
        database=target.database, schema='build_state', identifier='node_state'
    )) }}
{%- endmacro %}


{% macro create_build_state_table() -%}
    {#- on-run-start: where each node's fingerprint and data version live. -#}
    create schema if not exists build_state;
    create table if not exists build_state.node_state (
        unique_id varchar primary key,
        fingerprint varchar not null,
        data_version varchar not null,
        updated_at timestamp not null,
        invocation_id varchar not null,
        inputs_version varchar
    );
    -- a warehouse created before the column
    alter table build_state.node_state add column if not exists inputs_version varchar;
    -- {kind: version} of a relation versioned by kind (json)
    alter table build_state.node_state add column if not exists kind_versions varchar;
    create table if not exists build_state.built_sets (
        unique_id varchar not null,
        set_id varchar not null,
        version varchar not null
    )
{%- endmacro %}


{% macro reuse_enabled() -%}
    {{ return(not should_full_refresh() and var('reuse', true) and execute) }}
{%- endmacro %}


{% macro build_states() -%}
    {#- Every node's recorded {unique_id: [fingerprint, data_version,
        inputs_version, kind_versions (a dict, or none)]}: read once per build, then kept up to date in memory
        by record_node_state (dbt's graph is one object shared by the
        build's nodes). `inputs`: each node's input versions, computed once
        per build (node_input_versions). -#}
    {%- set held = graph.get('agent_eval_states') -%}
    {%- if held is none or held.invocation_id != invocation_id -%}
        {%- set states = {} -%}
        {%- set query -%}
            select unique_id, fingerprint, data_version, inputs_version, kind_versions
            from {{ build_state_relation() }}
        {%- endset -%}
        {%- for row in run_query(query).rows -%}
            {%- do states.update({row[0]: [
                row[1], row[2], row[3], (fromjson(row[4]) if row[4] is not none else none)
            ]}) -%}
        {%- endfor -%}
        {%- set held = {
            'invocation_id': invocation_id, 'states': states, 'pending': {}, 'inputs': {}, 'kinds': none
        } -%}
        {%- do graph.update({'agent_eval_states': held}) -%}
    {%- endif -%}
    {{ return(held) }}
{%- endmacro %}


{% macro node_input_versions() -%}
    {#- The data versions of what the running node reads, computed once per
        node and build (at its compilation when a set_incremental model asks
        inputs_unchanged, else at its materialization): {parts: ['<id>=<data
        version>', ...], version: their digest, none when one is not known}.
        An ephemeral model (the agents' interface models) runs nowhere and
        records no state: its SQL is inlined in this node's compiled code,
        so the node depends on what the ephemeral model reads. -#}
    {%- set held = build_states() -%}
    {%- if model.unique_id in held.inputs -%}
        {{ return(held.inputs[model.unique_id]) }}
    {%- endif -%}
    {%- set inputs = [] -%}
    {%- set agent = node_agent(model) if model.resource_type == 'model' else none -%}
    {%- set scope = namespace(agent=agent) -%}
    {%- set walk = namespace(pending=model.depends_on.nodes | list) -%}
    {%- for _ in range(8) -%}
        {%- set next = [] -%}
        {%- for id in walk.pending -%}
            {%- set node = graph.nodes.get(id) -%}
            {%- if node is not none and node.config.materialized == 'ephemeral' -%}
                {#- an ephemeral model of another folder: its SQL may read
                    other kinds, so the whole versions are read -#}
                {%- if node_agent(node) != agent -%}
                    {%- set scope.agent = none -%}
                {%- endif -%}
                {%- do next.extend(node.depends_on.nodes) -%}
            {%- else -%}
                {%- do inputs.append(id) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set walk.pending = next -%}
    {%- endfor -%}
    {%- set known = held.states -%}
    {%- set parts = [] -%}
    {%- set complete = [true] -%}
    {%- set kinds = agent_kinds(scope.agent) if scope.agent is not none else none -%}
    {%- for id in inputs | unique | sort -%}
        {%- set versions_by_kind = known[id][3] if id in known else none -%}
        {%- if kinds is not none and versions_by_kind is not none
            and graph.nodes.get(id, {}).get('config', {}).get('meta', {}).get('versions_by_kind') -%}
            {%- if not parts or not parts[0].startswith('kinds:') -%}
                {#- the kinds read, and the registry file they come from:
                    a changed seed executes the reader (the seed's relation
                    may be loaded later in this build) -#}
                {%- do parts.insert(0, 'kinds:' ~ scope.agent ~ '=' ~ (kinds | join(' '))
                    ~ '@' ~ registry_seed().checksum.checksum) -%}
            {%- endif -%}
            {%- for kind in kinds | sort -%}
                {%- do parts.append(id ~ '[' ~ kind ~ ']=' ~ versions_by_kind.get(kind, 'none')) -%}
            {%- endfor -%}
        {%- elif id.startswith('source.') -%}
            {%- set source_node = graph.sources[id] -%}
            {%- set count_query -%}
                select count(*) from {{ source(source_node.source_name, source_node.name) }}
            {%- endset -%}
            {%- do parts.append(id ~ '=' ~ run_query(count_query).columns[0].values()[0]) -%}
        {%- elif id in known -%}
            {%- do parts.append(id ~ '=' ~ known[id][1]) -%}
        {%- else -%}
            {%- do complete.append(false) -%}
            {%- do parts.append(id ~ '=?') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set result = {
        'parts': parts,
        'version': (local_md5(parts | join('\x1f')) if false not in complete else none),
    } -%}
    {%- do held.inputs.update({model.unique_id: result}) -%}
    {{ return(result) }}
{%- endmacro %}


{% macro node_agent(node) -%}
    {#- The agent whose folder holds `node` (models/<layer>/<agent>/...),
        none for a shared one. -#}
    {%- set fqn = node.fqn or [] -%}
    {{ return(fqn[2] if fqn | length > 3 and fqn[2] in var('agents') else none) }}
{%- endmacro %}


{% macro registry_seed() -%}
    {{ return(graph.nodes.get('seed.' ~ project_name ~ '.agents')) }}
{%- endmacro %}


{% macro agent_kinds(agent) -%}
    {#- The input kinds of `agent` as the registry seed's relation lists
        them (read once per build, from when it exists: a node compiled
        before a first build loads the seed reads the whole versions, and
        the nodes after it still read their kinds'), none when it is not
        loaded yet. -#}
    {%- set held = build_states() -%}
    {%- if held.kinds is none -%}
        {%- set seed = registry_seed() -%}
        {%- set relation = adapter.get_relation(
            database=seed.database, schema=seed.schema, identifier=seed.alias or seed.name
        ) if seed is not none else none -%}
        {%- if relation is none -%}
            {{ return(none) }}
        {%- endif -%}
        {%- set found = {} -%}
        {%- for row in run_query('select agent, input_kinds from ' ~ relation).rows -%}
            {%- do found.update({row[0]: (row[1] or '').split()}) -%}
        {%- endfor -%}
        {%- do held.update({'kinds': found}) -%}
    {%- endif -%}
    {{ return(held.kinds.get(agent)) }}
{%- endmacro %}


{% macro kind_versions(relation, data_version) -%}
    {#- {kind: digest of its rows} of a relation versioned by kind, for the
        running node that just recorded `data_version`: kept from its last
        state when that had the same data version (same rows), else one
        grouped query. none for any other node. -#}
    {%- if not (model.config.get('meta') or {}).get('versions_by_kind') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set previous = build_states().states.get(model.unique_id) -%}
    {%- if previous is not none and previous[1] == data_version and previous[3] is not none -%}
        {{ return(previous[3]) }}
    {%- endif -%}
    {%- set query -%}
        with hashed as (
            select kind, md5(cast(t as varchar)) as row_hash
            from {{ relation }} as t
        )
        select coalesce(kind, ''), md5(string_agg(row_hash, ',' order by row_hash))
        from hashed
        group by kind
    {%- endset -%}
    {%- set versions = {} -%}
    {%- for row in run_query(query).rows -%}
        {%- do versions.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {{ return(versions) }}
{%- endmacro %}


{% macro inputs_unchanged() -%}
    {#- Whether every input of the running node has the data version it had
        when the node last succeeded (and reuse is on). A set_incremental
        model asks it when it is compiled: its sets and the rows it holds
        are then those it left, which had every current set built, so it
        has no set to build and needs no query to say so. -#}
    {%- set previous = build_states().states.get(model.unique_id) -%}
    {%- set current = node_input_versions().version -%}
    {{ return(
        reuse_enabled()
        and previous is not none
        and current is not none
        and previous[2] == current
    ) }}
{%- endmacro %}


{% macro node_reuse_state() -%}
    {#- The fingerprint of the running node and whether it can be reused:
        {fingerprint, reusable, previous_version}. The compiled code is
        taken without what differs only between a creation and the builds
        after it (an incremental model's set filter, a Python loader's
        is_incremental flag): which rows are new is in the inputs' data
        versions already. -#}
    {%- set inputs = node_input_versions() -%}
    {%- set known = build_states().states -%}
    {%- set parts = [
        'v1',
        model.resource_type,
        modules.re.sub(
            'self\\.is_incremental = (True|False)',
            'self.is_incremental = <mode>',
            modules.re.sub(
                '/\\* agent_eval:set_filter\\[ \\*/.*?/\\* \\]agent_eval:set_filter \\*/',
                '<set filter>',
                model.get('compiled_code') or '',
                flags=modules.re.DOTALL
            )
        ),
        tojson(model.config),
        tojson(model.columns),
        (model.checksum.checksum if model.resource_type == 'seed' else '')
    ] + inputs.parts -%}
    {%- set fingerprint = local_md5(parts | join('\x1f')) -%}
    {%- set previous = known.get(model.unique_id) -%}
    {%- set reusable = (
        reuse_enabled()
        and inputs.version is not none
        and previous is not none
        and previous[0] == fingerprint
    ) -%}
    {{ return({
        'fingerprint': fingerprint,
        'reusable': reusable,
        'previous_version': (previous[1] if previous is not none else none),
    }) }}
{%- endmacro %}


{% macro record_node_state(fingerprint, data_version) -%}
    {#- The node succeeded: the nodes after it in this build see its new
        data version at once; the table gets it at the end of the build
        (save_node_states, on-run-end), in one statement. A build that dies
        before then loses only reuse: its nodes run again next time (the
        loaders' data versions are their live row counts, so everything
        after them is recomputed). -#}
    {%- set held = build_states() -%}
    {%- set state = [
        fingerprint, data_version, node_input_versions().version, kind_versions(this, data_version)
    ] -%}
    {%- do held.states.update({model.unique_id: state}) -%}
    {%- do held.pending.update({model.unique_id: state}) -%}
{%- endmacro %}


{% macro save_node_states() -%}
    {#- on-run-end: the states recorded by this build's nodes. -#}
    {%- set held = graph.get('agent_eval_states') if execute else none -%}
    {%- if held is not none and held.invocation_id == invocation_id and held.pending -%}
        insert or replace into {{ build_state_relation() }}
            (unique_id, fingerprint, data_version, updated_at, invocation_id, inputs_version, kind_versions)
        values
        {%- for unique_id, state in held.pending.items() %}
            ('{{ unique_id }}', '{{ state[0] }}', '{{ state[1] }}',
             cast(timezone('UTC', now()) as timestamp), '{{ invocation_id }}',
             {{ "'" ~ state[2] ~ "'" if state[2] is not none else 'null' }},
             {{ "'" ~ (tojson(state[3]) | replace("'", "''")) ~ "'" if state[3] is not none else 'null' }})
            {{- ',' if not loop.last }}
        {%- endfor %}
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}


{% macro relation_row_count(relation) -%}
    {%- set result = run_query('select count(*) from ' ~ relation) -%}
    {{ return(result.columns[0].values()[0]) }}
{%- endmacro %}
