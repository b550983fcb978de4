{#- @check <path> <op> [<value>]: groups 1 path, 2 op, 3 value. -#}
{%- set check_pattern = '^\\s*@check\\s+(\\S+)\\s+'
    ~ '(==|!=|>=|<=|>|<|contains|in|exists|not_exists)'
    ~ '(?:\\s+(.*?))?\\s*$' %}
-- One row per accuracy check of every scorable recruit item (SPEC 4.2):
-- the harness's accuracyChecks when non-empty, else every `@check` line of
-- expectedResult, evaluated here against the parsed raw response.
-- Grammar: @check <path> <op> [<value>]; path = keys with [n] / [*];
-- ops ==, !=, >, >=, <, <=, contains, in [a, b], exists, not_exists.
-- A line that does not parse is a failed check (invalid_check). Every JSON
-- step is guarded: the raw document is only read when it parsed, paths are
-- built from segments the grammar has validated (no quote, backslash or
-- `*` inside a key, indexes of at most 9 digits), so no value can make the
-- query fail.
with recursive

items as (

    select * from {{ ref('int_recruit_agent__items_current') }}

),

---------- checks reported by the harness (accuracyChecks)

reported as (

    select
        items.set_id,
        items.file_sha256,
        items.line_number,
        chk.check_seq,
        chk.check_json
    from items,
        unnest(
            json_transform(items.accuracy_checks_json, '["JSON"]')
        ) with ordinality as chk (check_json, check_seq)
    where json_array_length(items.accuracy_checks_json) > 0

),

reported_evaluated as (

    select
        set_id,
        file_sha256,
        line_number,
        check_seq,
        'accuracy_checks' as check_source,
        cast(null as bigint) as expected_line,
        coalesce(cast(json(check_json) as varchar), 'null') as check_text,
        case
            when json_type(check_json) = 'OBJECT' then check_json ->> '$.name'
        end as check_name,
        cast(null as varchar) as check_path,
        cast(null as varchar) as check_op,
        cast(null as varchar) as check_value,
        coalesce(
            json_type(check_json -> '$.passed') = 'BOOLEAN'
            and cast((check_json -> '$.passed') as boolean),
            false
        ) as is_passed,
        case
            when coalesce(json_type(check_json -> '$.passed'), '') <> 'BOOLEAN'
                then 'invalid_check'
            when cast((check_json -> '$.passed') as boolean) then 'passed'
            else 'reported_failed'
        end as reason,
        case
            when coalesce(json_type(check_json -> '$.passed'), '') <> 'BOOLEAN'
                then 'accuracyChecks element without a boolean "passed"'
        end as reason_detail,
        cast(null as bigint) as n_matches,
        cast(null as varchar) as actual_value
    from reported

),

---------- @check lines of expectedResult (when no accuracyChecks)

expected_lines as (

    select
        items.set_id,
        items.file_sha256,
        items.line_number,
        items.raw_json_state,
        case
            when
                items.raw_json_state = 'valid'
                then cast(items.raw_json as json)
        end as raw_doc,
        split_text.line_text,
        split_text.expected_line
    from items,
        unnest(
            string_split(replace(items.expected_result, chr(13), ''), chr(10))
        ) with ordinality as split_text (line_text, expected_line)
    where
        coalesce(json_array_length(items.accuracy_checks_json), 0) = 0
        and regexp_matches(split_text.line_text, '^\s*@check', 'i')

),

split_lines as (

    select
        *,
        row_number() over (
            partition by set_id, line_number order by expected_line
        ) as check_seq,
        trim(line_text) as check_text,
        nullif(
            regexp_extract(line_text, '{{ check_pattern }}', 1, 'i'), ''
        ) as check_path_raw,
        nullif(
            regexp_extract(line_text, '{{ check_pattern }}', 2, 'i'), ''
        ) as check_op_raw,
        nullif(
            regexp_extract(line_text, '{{ check_pattern }}', 3, 'i'), ''
        ) as check_value_raw
    from expected_lines

),

parsed as (

    select
        *,
        check_path_raw as check_path,
        lower(check_op_raw) as check_op,
        check_value_raw as check_value,
        regexp_full_match(
            check_path_raw,
            '(?:\$\.)?[^.\[\]\s"\\*]+(?:\[(?:\d{1,9}|\*)\])*'
            || '(?:\.[^.\[\]\s"\\*]+(?:\[(?:\d{1,9}|\*)\])*)*'
        ) as is_path_valid
    from split_lines

),

typed as (

    select
        *,
        -- the path below `$.`, split into keys, [n] and [*]
        regexp_extract_all(
            regexp_replace(check_path, '^\$\.', ''),
            '[^.\[\]]+|\[(?:\d+|\*)\]'
        ) as segments,
        -- expected values as JSON: literals as written, bare words as
        -- strings; `in` takes a JSON array or a bare [a, b] list
        case
            when
                check_op = 'in'
                and json_valid(check_value)
                and json_type(cast(check_value as json)) = 'ARRAY'
                then json_transform(check_value, '["JSON"]')
            when
                check_op = 'in'
                and regexp_full_match(check_value, '\[.*\]')
                then list_transform(
                    string_split(
                        regexp_extract(check_value, '^\[(.*)\]$', 1), ','
                    ),
                    lambda item: case
                        when
                            json_valid(trim(item))
                            then cast(trim(item) as json)
                        else to_json(trim(item))
                    end
                )
            when check_op <> 'in' and check_value is not null
                then [
                    case
                        when
                            json_valid(check_value)
                            then cast(check_value as json)
                        else to_json(check_value)
                    end
                ]
        end as expected_json
    from parsed

),

validated as (

    select
        *,
        case
            when check_op is null
                then 'not of the form @check <path> <op> [<value>]'
            when not is_path_valid then 'invalid path ' || check_path
            when
                check_op in ('exists', 'not_exists')
                and check_value is not null
                then check_op || ' takes no value'
            when
                check_op not in ('exists', 'not_exists')
                and check_value is null
                then check_op || ' needs a value'
            when check_op = 'in' and expected_json is null
                then 'in needs a list: in [a, b]'
        end as invalid_detail,
        list_transform(
            expected_json,
            lambda e: {
                't': {{ recruit_json_text('e') }},
                'n': {{ recruit_json_number('e', allow_numeric_string=false) }}
            }
        ) as expected_items
    from typed

),

checks as (

    select
        *,
        invalid_detail is null as is_valid_check,
        expected_items[1].t as expected_text,
        expected_items[1].n as expected_number
    from validated

),

---------- walk each valid path through the raw response

walk (set_id, line_number, check_seq, step, node) as (

    select
        set_id,
        line_number,
        check_seq,
        0 as step,
        raw_doc as node
    from checks
    where is_valid_check and raw_json_state = 'valid'

    union all

    select
        walk.set_id,
        walk.line_number,
        walk.check_seq,
        walk.step + 1 as step,
        unnest(
            case
                when checks.segments[walk.step + 1] = '[*]'
                    then json_extract(walk.node, '$[*]')
                when starts_with(checks.segments[walk.step + 1], '[')
                    then [
                        json_extract(
                            walk.node, '$' || checks.segments[walk.step + 1]
                        )
                    ]
                else [
                    json_extract(
                        walk.node,
                        '$."' || checks.segments[walk.step + 1] || '"'
                    )
                ]
            end
        ) as node
    from walk
    inner join checks
        on
            walk.set_id = checks.set_id
            and walk.line_number = checks.line_number
            and walk.check_seq = checks.check_seq
    where
        walk.step < len(checks.segments)
        and json_type(walk.node) <> 'NULL'

),

-- JSON null counts as absent
matches as (

    select
        walk.set_id,
        walk.line_number,
        walk.check_seq,
        walk.node,
        {{ recruit_json_text('walk.node') }} as actual_text,
        {{ recruit_json_number('walk.node') }} as actual_number
    from walk
    inner join checks
        on
            walk.set_id = checks.set_id
            and walk.line_number = checks.line_number
            and walk.check_seq = checks.check_seq
    where
        walk.step = len(checks.segments)
        and json_type(walk.node) <> 'NULL'

),

-- numeric comparison when both sides are numbers, else text comparison
match_outcomes as (

    select
        matches.set_id,
        matches.line_number,
        matches.check_seq,
        matches.actual_text,
        case checks.check_op
            when '=='
                then {{ recruit_check_equals(
                    'matches.actual_number', 'matches.actual_text',
                    'checks.expected_number', 'checks.expected_text'
                ) }}
            when '!='
                then not {{ recruit_check_equals(
                    'matches.actual_number', 'matches.actual_text',
                    'checks.expected_number', 'checks.expected_text'
                ) }}
            when '>' then {{ recruit_check_compare(
                '>', 'matches.actual_number', 'matches.actual_text',
                'checks.expected_number', 'checks.expected_text'
            ) }}
            when '>=' then {{ recruit_check_compare(
                '>=', 'matches.actual_number', 'matches.actual_text',
                'checks.expected_number', 'checks.expected_text'
            ) }}
            when '<' then {{ recruit_check_compare(
                '<', 'matches.actual_number', 'matches.actual_text',
                'checks.expected_number', 'checks.expected_text'
            ) }}
            when '<=' then {{ recruit_check_compare(
                '<=', 'matches.actual_number', 'matches.actual_text',
                'checks.expected_number', 'checks.expected_text'
            ) }}
            when 'in'
                then list_bool_or(
                    list_transform(
                        checks.expected_items,
                        lambda x: {{ recruit_check_equals(
                            'matches.actual_number', 'matches.actual_text',
                            'x.n', 'x.t'
                        ) }}
                    )
                )
            when 'contains'
                then case json_type(matches.node)
                    when 'VARCHAR'
                        then contains(
                            matches.actual_text, checks.expected_text
                        )
                    when 'ARRAY'
                        then list_bool_or(
                            list_transform(
                                json_transform(matches.node, '["JSON"]'),
                                lambda el: {{ recruit_check_equals(
                                    recruit_json_number('el'),
                                    recruit_json_text('el'),
                                    'checks.expected_number',
                                    'checks.expected_text'
                                ) }}
                            )
                        )
                    else false
                end
            else false
        end as is_match_passed
    from matches
    inner join checks
        on
            matches.set_id = checks.set_id
            and matches.line_number = checks.line_number
            and matches.check_seq = checks.check_seq

),

check_matches as (

    select
        set_id,
        line_number,
        check_seq,
        count(*) as n_matches,
        coalesce(bool_or(is_match_passed), false) as is_any_passed,
        left(
            string_agg(actual_text, ' | ' order by actual_text), 200
        ) as actual_value
    from match_outcomes
    group by set_id, line_number, check_seq

),

line_evaluated as (

    select
        checks.set_id,
        checks.file_sha256,
        checks.line_number,
        checks.check_seq,
        'expected_result' as check_source,
        checks.expected_line,
        checks.check_text,
        cast(null as varchar) as check_name,
        checks.check_path,
        checks.check_op,
        checks.check_value,
        coalesce(check_matches.n_matches, 0) as n_matches,
        check_matches.actual_value,
        case
            when not checks.is_valid_check then 'invalid_check'
            when checks.raw_json_state <> 'valid' then 'raw_unparseable'
            when checks.check_op = 'exists'
                then case
                    when check_matches.n_matches > 0 then 'passed'
                    else 'path_not_found'
                end
            when checks.check_op = 'not_exists'
                then case
                    when check_matches.n_matches > 0 then 'path_exists'
                    else 'passed'
                end
            when check_matches.n_matches is null then 'path_not_found'
            when check_matches.is_any_passed then 'passed'
            else 'value_mismatch'
        end as reason,
        case
            when not checks.is_valid_check then checks.invalid_detail
            when checks.raw_json_state <> 'valid'
                then 'raw response is ' || checks.raw_json_state
        end as reason_detail
    from checks
    left join check_matches
        on
            checks.set_id = check_matches.set_id
            and checks.line_number = check_matches.line_number
            and checks.check_seq = check_matches.check_seq

),

final as (

    select
        set_id,
        file_sha256,
        line_number,
        check_seq,
        check_source,
        expected_line,
        check_text,
        check_name,
        check_path,
        check_op,
        check_value,
        is_passed,
        reason,
        reason_detail,
        n_matches,
        actual_value
    from reported_evaluated

    union all

    select
        set_id,
        file_sha256,
        line_number,
        check_seq,
        check_source,
        expected_line,
        check_text,
        check_name,
        check_path,
        check_op,
        check_value,
        reason = 'passed' as is_passed,
        reason,
        reason_detail,
        n_matches,
        actual_value
    from line_evaluated

)

select * from final
