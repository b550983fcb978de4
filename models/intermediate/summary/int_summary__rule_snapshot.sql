-- One row: the rule snapshot, an md5 over every rule seed row in force
-- (keyword lists, tag map, units, rule parameters), ordered, one line per
-- row as `<seed>|<col>|<col>...`. A score stored with this hash can be traced
-- to the rules that made it; editing any rule seed changes it. Thresholds
-- are not rules (they only set pass flags) and notes are not hashed.
with

tag_keywords as (

    select * from {{ ref('summary_tag_keywords') }}

),

definitive_keywords as (

    select * from {{ ref('summary_definitive_keywords') }}

),

entity_keywords as (

    select * from {{ ref('summary_entity_keywords') }}

),

entity_units as (

    select * from {{ ref('summary_entity_units') }}

),

rule_params as (

    select * from {{ ref('summary_rule_params') }}

),

rule_rows as (

    select concat_ws('|', 'summary_tag_keywords', tag, keyword) as row_text
    from tag_keywords
    union all
    select concat_ws('|', 'summary_definitive_keywords', keyword) as row_text
    from definitive_keywords
    union all
    select
        concat_ws('|', 'summary_entity_keywords', keyword, language)
            as row_text
    from entity_keywords
    union all
    select
        concat_ws(
            '|', 'summary_entity_units', unit, position, entity_type,
            canonical_unit, cast(multiplier as varchar)
        ) as row_text
    from entity_units
    union all
    select
        concat_ws('|', 'summary_rule_params', param, cast(value as varchar))
            as row_text
    from rule_params

),

final as (

    select
        md5(string_agg(row_text, chr(10) order by row_text)) as rule_snapshot,
        count(*) as n_rule_rows
    from rule_rows

)

select * from final
