{#- Insurance summary metrics (SPEC 6): the judgments table the judge
    command appends to, and the regular expressions the rule models share. -#}

{% macro create_summary_judgments_table() -%}
    {#- on-run-start: the judge's append-only table must exist before any
        model reads it (it is a dbt source, never rebuilt by dbt). -#}
    create schema if not exists judge;
    create table if not exists judge.summary_judgments (
        judgment_id varchar primary key,
        set_id varchar not null,
        file_sha256 varchar not null,
        case_id varchar not null,
        metric varchar not null,
        rule_score double,
        llm_score double,
        status varchar not null,
        error varchar,
        model varchar,
        prompt_version varchar,
        endpoint varchar,
        reply_text varchar,
        judged_at timestamp not null
    )
{%- endmacro %}


{% macro summary_keyword_regex(keyword_expr) -%}
    {#- A seed keyword as a case-insensitive regex: metacharacters escaped,
        a space matches any run of whitespace or none (`전액 지급` also
        matches `전액  지급` and `전액지급`). -#}
    '(?i)' || replace(regexp_escape(trim({{ keyword_expr }})), '\ ', '\s*')
{%- endmacro %}


{% macro summary_number_regex() -%}
    {#- A number: digits with optional `,` thousands groups, optional `.`
        decimal part (150,000,000 / 1.5 / 3.50). -#}
    '(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)'
{%- endmacro %}


{% macro summary_date_regex() -%}
    {#- A date YYYY-MM-DD written with `-`, `.` or `/`; month and day may
        have one digit (2024.3.1 -> 20240301). -#}
    '\d{4}[-./]\d{1,2}[-./]\d{1,2}'
{%- endmacro %}


{% macro trim_decimal(expr) -%}
    {#- A decimal as text without trailing zeros: 3.50 -> 3.5, 150.00 -> 150. -#}
    regexp_replace(
        regexp_replace(cast({{ expr }} as varchar), '(\.\d*?)0+$', '\1'),
        '\.$', ''
    )
{%- endmacro %}


{% macro delete_summary_sets_scored_with_other_rules() -%}
    {#- Summary rule scores: a set scored with another rule snapshot (a rule
        seed was edited) is deleted, so unbuilt() re-scores it. -#}
    {%- if is_incremental() -%}
        delete from {{ this }}
        where rule_snapshot not in (
            select snap.rule_snapshot
            from {{ ref('int_summary__rule_snapshot') }} as snap
        )
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}
