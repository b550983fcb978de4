{#- Withdrawn deliveries: `agent-eval withdraw` appends to
    operator.withdrawals, a dbt source never rebuilt by dbt. -#}

{% macro create_withdrawals_table() -%}
    {#- on-run-start: the table must exist before stg_drops__file_versions
        reads it, and before the first `agent-eval withdraw`. One row per
        action on one version (source_file, sha256) of a delivery; the
        latest action of a version decides (withdraw or undo). -#}
    create schema if not exists operator;
    create table if not exists operator.withdrawals (
        action_seq bigint primary key,
        source_file varchar not null,
        sha256 varchar not null,
        action varchar not null check (action in ('withdraw', 'undo')),
        reason varchar not null,
        acted_by varchar not null,
        acted_at timestamp not null
    )
{%- endmacro %}
