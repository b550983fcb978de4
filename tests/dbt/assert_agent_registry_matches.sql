-- The agent registry agrees with itself and with the drops: the seed
-- `agents` and var('agents') (which dbt reads when it parses the project)
-- name the same agents, and the same importers of other tools' files
-- (imports_tool, var('imported_tools')); every drop kind the loader found
-- belongs to exactly one registered agent, and the history seeds name
-- registered agents only (history_pass_rules: agents that have items). One
-- row per disagreement.
with

registry as (

    select * from {{ ref('agents') }}

),

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

parsed as (

    select
        unnest([
            {%- for agent in var('agents') %}
                '{{ agent }}'{% if not loop.last %},{% endif %}
            {%- endfor %}
        ]) as agent

),

parsed_tools as (

    select
        unnest([
            {%- for tool in var('imported_tools') %}
                '{{ tool }}'{% if not loop.last %},{% endif %}
            {%- endfor %}
        ]) as agent

),

registry_tools as (

    select agent from registry
    where imports_tool

),

registry_kinds as (

    select
        registry.agent,
        unnest(string_split(registry.input_kinds, ' ')) as kind
    from registry

),

seed_agents as (

    select
        'history_metrics' as seed_name,
        agent
    from {{ ref('history_metrics') }}
    union all
    select
        'expected_series' as seed_name,
        agent
    from {{ ref('expected_series') }}
    union all
    select
        'history_pass_rules' as seed_name,
        agent
    from {{ ref('history_pass_rules') }}

),

found_kinds as (

    select distinct kind from file_versions
    where kind is not null

),

problems as (

    select
        coalesce(registry.agent, parsed.agent) as subject,
        case
            when registry.agent is null
                then 'in var agents (dbt_project.yml), not in seed agents'
            else 'in seed agents, not in var agents (dbt_project.yml)'
        end as problem
    from registry
    full outer join parsed
        on registry.agent = parsed.agent
    where registry.agent is null or parsed.agent is null

    union all

    select
        coalesce(registry_tools.agent, parsed_tools.agent) as subject,
        case
            when registry_tools.agent is null
                then
                    'in var imported_tools (dbt_project.yml), not an'
                    || ' imports_tool agent of seed agents'
            else
                'an imports_tool agent of seed agents, not in var'
                || ' imported_tools (dbt_project.yml)'
        end as problem
    from registry_tools
    full outer join parsed_tools
        on registry_tools.agent = parsed_tools.agent
    where registry_tools.agent is null or parsed_tools.agent is null

    union all

    select
        found_kinds.kind as subject,
        'drop kind of no registered agent (seed agents, input_kinds)'
            as problem
    from found_kinds
    anti join registry_kinds
        on found_kinds.kind = registry_kinds.kind

    union all

    select
        kind as subject,
        'drop kind of more than one agent (seed agents, input_kinds)'
            as problem
    from registry_kinds
    group by kind
    having count(*) > 1

    union all

    select
        seed_agents.agent as subject,
        'agent in seed ' || seed_agents.seed_name
        || ' is not a registered agent'
        || case
            when seed_agents.seed_name = 'history_pass_rules'
                then ' with items (seed agents, has_items)'
            else ' (seed agents)'
        end as problem
    from seed_agents
    left join registry
        on seed_agents.agent = registry.agent
    where
        seed_agents.agent is not null
        and (
            registry.agent is null
            or (
                seed_agents.seed_name = 'history_pass_rules'
                and not registry.has_items
            )
        )

)

select * from problems
