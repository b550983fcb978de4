{#- Containers nested deeper than this keep their JSON text as delivered
    (minified, not sorted). dataUIList -> element -> setting -> ... leaves
    five levels for the setting's own nesting. -#}
{%- set max_depth = 8 -%}
-- One row per scorable recruit item: its ui_signature (SPEC 4.2), the
-- order-insensitive core of dataUIList used by consistency ratioB.
-- Each element is projected on the signature keys (formType, actionType,
-- planId, value.nodeId, value.nodeType, setting, filterType; a missing key
-- is null) and the list is written as canonical JSON: object keys sorted,
-- array elements sorted (so element order and key order never matter),
-- built bottom-up from the exploded JSON tree (set-based, no nested lambdas).
-- An empty or missing dataUIList is `EMPTY`.
with recursive

items as (

    select * from {{ ref('int_recruit_agent__items_current') }}

),

elements as (

    select
        set_id,
        line_number,
        case json_type(data_ui_list_json::json)
            when 'ARRAY' then json_transform(data_ui_list_json, '["JSON"]')
            -- a single object counts as one element
            else [data_ui_list_json::json]
        end as element_list
    from items
    where n_data_ui > 0

),

docs as (

    select
        set_id,
        line_number,
        to_json(
            list_transform(
                element_list,
                lambda el: case
                    when json_type(el) = 'OBJECT'
                        then json_object(
                            'formType', el -> '$.formType',
                            'actionType', el -> '$.actionType',
                            'planId', el -> '$.planId',
                            'nodeId', el -> '$.value.nodeId',
                            'nodeType', el -> '$.value.nodeType',
                            'setting', el -> '$.setting',
                            'filterType', el -> '$.filterType'
                        )
                    else el
                end
            )
        ) as doc
    from elements

),

---------- explode every document into its nodes, top-down

nodes (
    set_id, line_number, node_id, parent_id, node_depth, entry_key, node
) as (

    select
        set_id,
        line_number,
        '0' as node_id,
        null::varchar as parent_id,
        0 as node_depth,
        null::varchar as entry_key,
        doc as node
    from docs

    union all

    select
        nodes.set_id,
        nodes.line_number,
        nodes.node_id || '.' || children.ord as node_id,
        nodes.node_id as parent_id,
        nodes.node_depth + 1 as node_depth,
        children.entry.key as entry_key,
        children.entry.value as node
    from nodes,
        unnest(
            {{ recruit_json_entries('nodes.node') }}
        ) with ordinality as children (entry, ord)
    where nodes.node_depth < {{ max_depth }}

),

flagged as (

    select
        *,
        node_depth < {{ max_depth }}
        and {{ recruit_json_entries('node') }} is not null as is_expanded,
        json_type(node) = 'OBJECT' as is_object
    from nodes

),

---------- canonical text, bottom-up: a container is its children's
-- canonical entries, sorted; an object entry is "key":value

{% for level in range(max_depth, -1, -1) %}
    level_{{ level }} as (

        select
            node.set_id,
            node.line_number,
            node.node_id,
            node.parent_id,
            coalesce(to_json(node.entry_key)::varchar || ':', '')
            || case
                when node.is_expanded
                    then
                        case when node.is_object then '{' else '[' end
                        || coalesce(
                            {%- if level < max_depth %}
                                string_agg(
                                    child.entry_text,
                                    ',' order by child.entry_text
                                ),
                            {%- endif %}
                            ''
                        )
                        || case when node.is_object then '}' else ']' end
                else coalesce(json(node.node)::varchar, 'null')
            end as entry_text
        from
            flagged as node
            {%- if level < max_depth %}
            left join level_{{ level + 1 }} as child
                on
                    node.set_id = child.set_id
                    and node.line_number = child.line_number
                    and node.node_id = child.parent_id
                {%- endif %}
        where node.node_depth = {{ level }}
        group by
            node.set_id,
            node.line_number,
            node.node_id,
            node.parent_id,
            node.entry_key,
            node.is_expanded,
            node.is_object,
            node.node

    ),

{% endfor %}
final as (

    select
        items.set_id,
        items.line_number,
        coalesce(level_0.entry_text, 'EMPTY') as ui_signature
    from items
    left join level_0
        on
            items.set_id = level_0.set_id
            and items.line_number = level_0.line_number

)

select * from final
