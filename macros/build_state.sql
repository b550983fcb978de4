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
        invocation_id varchar not null
    );
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
    {#- Every node's recorded {unique_id: [fingerprint, data_version]}: read
        once per build, then kept up to date in memory by record_node_state
        (dbt's graph is one object shared by the build's nodes). -#}
    {%- set held = graph.get('agent_eval_states') -%}
    {%- if held is none or held.invocation_id != invocation_id -%}
        {%- set states = {} -%}
        {%- for row in run_query('select unique_id, fingerprint, data_version from ' ~ build_state_relation()).rows -%}
            {%- do states.update({row[0]: [row[1], row[2]]}) -%}
        {%- endfor -%}
        {%- set held = {'invocation_id': invocation_id, 'states': states, 'pending': {}} -%}
        {%- do graph.update({'agent_eval_states': held}) -%}
    {%- endif -%}
    {{ return(held) }}
{%- endmacro %}


{% macro node_reuse_state() -%}
    {#- The fingerprint of the running node and whether it can be reused:
        {fingerprint, reusable, previous_version}. The compiled code is
        taken without what differs only between a creation and the builds
        after it (an incremental model's set filter, a Python loader's
        is_incremental flag): which rows are new is in the inputs' data
        versions already. -#}
    {#- an ephemeral model (the agents' interface models) runs nowhere and
        records no state: its SQL is inlined in this node's compiled code,
        so the node depends on what the ephemeral model reads -#}
    {%- set inputs = [] -%}
    {%- set walk = namespace(pending=model.depends_on.nodes | list) -%}
    {%- for _ in range(8) -%}
        {%- set next = [] -%}
        {%- for id in walk.pending -%}
            {%- set node = graph.nodes.get(id) -%}
            {%- if node is not none and node.config.materialized == 'ephemeral' -%}
                {%- do next.extend(node.depends_on.nodes) -%}
            {%- else -%}
                {%- do inputs.append(id) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set walk.pending = next -%}
    {%- endfor -%}
    {%- set inputs = inputs | unique | sort | list -%}
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
    ] -%}
    {%- set complete = [true] -%}
    {%- for id in inputs -%}
        {%- if id.startswith('source.') -%}
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
    {%- set fingerprint = local_md5(parts | join('\x1f')) -%}
    {%- set previous = known.get(model.unique_id) -%}
    {%- set reusable = (
        reuse_enabled()
        and (false not in complete)
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
    {%- do held.states.update({model.unique_id: [fingerprint, data_version]}) -%}
    {%- do held.pending.update({model.unique_id: [fingerprint, data_version]}) -%}
{%- endmacro %}


{% macro save_node_states() -%}
    {#- on-run-end: the states recorded by this build's nodes. -#}
    {%- set held = graph.get('agent_eval_states') if execute else none -%}
    {%- if held is not none and held.invocation_id == invocation_id and held.pending -%}
        insert or replace into {{ build_state_relation() }}
        values
        {%- for unique_id, state in held.pending.items() %}
            ('{{ unique_id }}', '{{ state[0] }}', '{{ state[1] }}',
             cast(timezone('UTC', now()) as timestamp), '{{ invocation_id }}')
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
