{#-
  Nightly history (docs/history.md): series, clustered confidence intervals,
  repeats, paired tests and the scoring version of a set.
-#}

{% macro t_critical_975(df_expr) -%}
    {#- Two-sided 95% critical value of Student's t with `df_expr` degrees of
        freedom (the 0.975 quantile), within 1e-6 of the exact value for
        every df; null below 1. df 1-30: the exact quantiles (scipy, 9
        decimals); from 31: the four-term Cornish-Fisher expansion in 1/df,
        whose largest error there is 2.6e-8 (at df 31). Both come from and
        are checked by scripts/t_quantiles.py. -#}
    case
        when {{ df_expr }} is null or {{ df_expr }} < 1 then null
        {%- for df, t in [
            (1, 12.706204736), (2, 4.302652730), (3, 3.182446305),
            (4, 2.776445105), (5, 2.570581836), (6, 2.446911851),
            (7, 2.364624252), (8, 2.306004135), (9, 2.262157163),
            (10, 2.228138852), (11, 2.200985160), (12, 2.178812830),
            (13, 2.160368656), (14, 2.144786688), (15, 2.131449546),
            (16, 2.119905299), (17, 2.109815578), (18, 2.100922040),
            (19, 2.093024054), (20, 2.085963447), (21, 2.079613845),
            (22, 2.073873068), (23, 2.068657610), (24, 2.063898562),
            (25, 2.059538553), (26, 2.055529439), (27, 2.051830516),
            (28, 2.048407142), (29, 2.045229642), (30, 2.042272456)
        ] %}
        when {{ df_expr }} = {{ df }} then {{ t }}
        {%- endfor %}
        else 1.959963984540054
            + 2.372271230298562 / ({{ df_expr }})
            + 2.822498615739611 / pow({{ df_expr }}, 2)
            + 2.555849679507722 / pow({{ df_expr }}, 3)
            + 1.589534053393822 / pow({{ df_expr }}, 4)
    end
{%- endmacro %}


{% macro comb(n_expr, k_expr) -%}
    {#- Binomial coefficient C(n, k) as a double (0 when k > n or k < 0),
        exact up to 2^53: lgamma then rounding to the nearest integer. -#}
    case
        when {{ k_expr }} < 0 or {{ k_expr }} > {{ n_expr }} then 0.0
        else round(exp(
            lgamma({{ n_expr }} + 1)
            - lgamma({{ k_expr }} + 1)
            - lgamma({{ n_expr }} - {{ k_expr }} + 1)
        ))
    end
{%- endmacro %}


{% macro cluster_mean_stats(observations) -%}
    {#- The statistics of a mean of group means, clustered by query:
        cluster_residuals then cluster_robust_stats. Emits CTEs ending with
        cluster_sums and metric_stats (set_id, file_sha256, metric,
        metric_value, n_obs, n_clusters, std_error); the caller writes the
        comma after it. -#}
    {{ cluster_residuals(observations) }},

    {{ cluster_robust_stats('metric_values', 'cluster_sums') }}
{%- endmacro %}


{% macro cluster_residuals(observations) -%}
    {#- `observations` names a CTE with one row per observation: set_id,
        file_sha256, metric, group_key (the round, or round pair, whose mean
        is averaged; one constant for a plain mean), cluster_id (the query or
        case) and metric_value (nulls are left out, as avg() does). The set
        value is the mean over groups of the group means, i.e. a weighted
        mean with weight w = 1 / (groups x observations in the group).
        Emits CTEs ending with metric_values (set_id, file_sha256, metric,
        metric_value, n_obs) and cluster_sums (set_id, metric, cluster_id,
        residual_sum = sum over the cluster's observations of w (y - value)).
    -#}
    obs_valued as (

        select * from {{ observations }}
        where metric_value is not null

    ),

    group_sizes as (

        select
            set_id,
            metric,
            group_key,
            count(*) as n_group,
            {{ exact_avg('metric_value') }} as group_mean
        from obs_valued
        group by set_id, metric, group_key

    ),

    group_counts as (

        select
            set_id,
            metric,
            count(*) as n_groups,
            sum(n_group) as n_obs,
            -- one group: its mean as is (as a plain mean over items is)
            case
                when count(*) = 1 then max(group_mean)
                else {{ exact_avg('group_mean') }}
            end as metric_value
        from group_sizes
        group by set_id, metric

    ),

    metric_values as (

        select
            group_counts.set_id,
            set_versions.file_sha256,
            group_counts.metric,
            group_counts.metric_value,
            cast(group_counts.n_obs as bigint) as n_obs
        from group_counts
        inner join (
            select distinct
                set_id,
                file_sha256
            from obs_valued
        ) as set_versions
            on group_counts.set_id = set_versions.set_id

    ),

    obs_weighted as (

        select
            obs_valued.set_id,
            obs_valued.metric,
            obs_valued.cluster_id,
            1.0 / (group_counts.n_groups * group_sizes.n_group)
            * (obs_valued.metric_value - group_counts.metric_value)
                as weighted_residual
        from obs_valued
        inner join group_sizes
            on
                obs_valued.set_id = group_sizes.set_id
                and obs_valued.metric = group_sizes.metric
                and obs_valued.group_key = group_sizes.group_key
        inner join group_counts
            on
                obs_valued.set_id = group_counts.set_id
                and obs_valued.metric = group_counts.metric

    ),

    cluster_sums as (

        select
            set_id,
            metric,
            cluster_id,
            sum(weighted_residual) as residual_sum
        from obs_weighted
        group by set_id, metric, cluster_id

    )
{%- endmacro %}


{% macro cluster_robust_stats(values_cte, cluster_sums_cte) -%}
    {#- The cluster-robust (CR1) standard error of each (set, metric) of
        `values_cte` (set_id, file_sha256, metric, metric_value, n_obs) from
        its per-cluster residual sums s_g in `cluster_sums_cte` (set_id,
        metric, cluster_id, residual_sum):
            V = G / (G - 1) x sum over clusters g of s_g^2,
        with G clusters (queries), so repeats of a query do not inflate n;
        none with one cluster. Emits the CTE metric_stats (set_id,
        file_sha256, metric, metric_value, n_obs, n_clusters, std_error). -#}
    cluster_variance as (

        select
            set_id,
            metric,
            count(*) as n_clusters,
            sum(residual_sum * residual_sum) as sum_squares
        from {{ cluster_sums_cte }}
        group by set_id, metric

    ),

    metric_stats as (

        select
            vals.set_id,
            vals.file_sha256,
            vals.metric,
            vals.metric_value,
            vals.n_obs,
            cast(cluster_variance.n_clusters as bigint) as n_clusters,
            case
                when cluster_variance.n_clusters > 1
                    then round(sqrt(
                        cluster_variance.n_clusters
                        / (cluster_variance.n_clusters - 1.0)
                        * cluster_variance.sum_squares
                    ), 12)
            end as std_error
        from {{ values_cte }} as vals
        inner join cluster_variance
            on
                vals.set_id = cluster_variance.set_id
                and vals.metric = cluster_variance.metric

    )
{%- endmacro %}


{% macro mcnemar_exact_p(b_expr, c_expr) -%}
    {#- Exact two-sided McNemar p-metric_value for b and c discordant pairs:
        min(1, 2 x P(X <= min(b, c))), X ~ Binomial(b + c, 1/2); 1 when
        there is no discordant pair. -#}
    (
        select
            case
                when ({{ b_expr }}) + ({{ c_expr }}) = 0 then 1.0
                else least(1.0, 2 * sum(
                    {{ comb('(' ~ b_expr ~ ') + (' ~ c_expr ~ ')', 'i') }}
                    * pow(0.5, ({{ b_expr }}) + ({{ c_expr }}))
                ))
            end
        from range(0, least({{ b_expr }}, {{ c_expr }}) + 1) as r (i)
    )
{%- endmacro %}


{% macro scoring_version(agent) -%}
    {#- The scoring version of `agent`'s results, as a SQL string literal: an
        md5 over the checksums of the seeds and models in the agent's folders
        and in common/, and over the source of every project macro those
        models call (directly or through other macros). Computed when the
        model is compiled, so a set keeps the version it was scored with;
        any edit of a rule seed or of that SQL gives a new version. -#}
    {#- unit tests compile models without the project graph -#}
    {%- if not execute or 'nodes' not in graph -%}
        {{ return("'unknown'") }}
    {%- endif -%}
    {%- set prefix = 'macro.' ~ project_name ~ '.' -%}
    {%- set parts = [] -%}
    {%- set macro_names = [] -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type in ['seed', 'model']
            and node.package_name == project_name -%}
            {%- set folders = node.original_file_path.split('/') -%}
            {%- if agent in folders or 'common' in folders -%}
                {%- do parts.append(
                    node.original_file_path ~ '=' ~ node.checksum.checksum
                ) -%}
                {%- for macro_id in node.depends_on.macros -%}
                    {%- if macro_id.startswith(prefix) -%}
                        {%- do macro_names.append(macro_id[prefix | length:]) -%}
                    {%- endif -%}
                {%- endfor -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {#- macros called by macros: a few passes reach every depth used here -#}
    {%- for _ in range(4) -%}
        {%- for name in macro_names | unique | list -%}
            {%- for macro_id in context[name].macro.depends_on.macros -%}
                {%- if macro_id.startswith(prefix) -%}
                    {%- do macro_names.append(macro_id[prefix | length:]) -%}
                {%- endif -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- for name in macro_names | unique | list -%}
        {%- do parts.append(name ~ '=' ~ local_md5(context[name].macro.macro_sql)) -%}
    {%- endfor -%}
    {{ return("'" ~ local_md5(parts | sort | join('\n')) ~ "'") }}
{%- endmacro %}


{% macro freshness_as_of() -%}
    {#- The date freshness gates measure ages on (YYYY-MM-DD): var
        freshness_as_of or $AGENT_EVAL_AS_OF (DuckDB's date literal checks
        it; for replaying an old night), else the day the
        build started (UTC). A literal in the compiled SQL, so a model using
        it runs again on each new day. -#}
    {%- set given = var('freshness_as_of', none) or env_var('AGENT_EVAL_AS_OF', '') -%}
    {%- if given -%}
        {{ given | string | trim }}
    {%- elif run_started_at is defined -%}
        {{ run_started_at.strftime('%Y-%m-%d') }}
    {%- else -%}
        2000-01-01
    {%- endif -%}
{%- endmacro %}


{% macro latency_scope() -%}
    {#- In a grouping-sets aggregate by round and segment: which of the four
        scopes the row's group is. -#}
    case
        when grouping(round) = 0 and grouping(segment) = 0
            then 'round_segment'
        when grouping(round) = 0 then 'round'
        when grouping(segment) = 0 then 'segment'
        else 'set'
    end
{%- endmacro %}


{% macro quantile_from_counts(p) -%}
    {#- quantile_cont(latency_sec, p) of a group given as (latency_sec,
        n_values) rows with n_upto (running count in value order) and
        n_total: h = (n - 1) p lies between order statistics floor(h) and
        floor(h) + 1 (0-based); statistic k is the first value whose running
        count exceeds k; the result is lo + (hi - lo) (h - floor(h)), as
        DuckDB's quantile_cont computes it. -#}
    {%- set h = '(cast(n_total - 1 as double) * cast(' ~ p ~ ' as double))' -%}
    {%- set h_group = '(cast(max(n_total) - 1 as double) * cast(' ~ p ~ ' as double))' -%}
    (
        min(latency_sec) filter (where n_upto > floor({{ h }}))
        + (
            coalesce(
                min(latency_sec) filter (where n_upto > floor({{ h }}) + 1),
                min(latency_sec) filter (where n_upto > floor({{ h }}))
            )
            - min(latency_sec) filter (where n_upto > floor({{ h }}))
        )
        * ({{ h_group }} - floor({{ h_group }}))
    )
{%- endmacro %}


{% macro interval_bound(side, value, std_error, t_critical, n_obs, scale_min, scale_max, is_proportion) -%}
    {#- One end (`side` 'low' or 'high') of the 95% interval of a set
        metric, reported within its scale (seed history_metrics):
        - a proportion (is_proportion): Wilson's score interval with the
          clustered effective sample size n = 1 + p (1 - p) / se^2 (capped
          at n_obs; with each item its own cluster it is n_obs, and the
          interval is Wilson's for a binomial count), n_obs when p is 0 or
          1 (se 0): it never leaves [0, 1] and is not degenerate at 0 or 1;
        - anything else: the cluster-robust t interval value +- t se,
          intersected with [scale_min, scale_max] (an interval cut at the
          scale's end keeps its coverage: the true value lies within the
          scale).
        Null without a standard error (one cluster). -#}
    {%- set z = 1.959963984540054 -%}
    {%- set n_eff -%}
        least(
            {{ n_obs }},
            case
                when {{ std_error }} > 0 and {{ value }} > 0 and {{ value }} < 1
                    then 1 + {{ value }} * (1 - {{ value }}) / ({{ std_error }} ^ 2)
                else {{ n_obs }}
            end
        )
    {%- endset -%}
    {%- set sign = '-' if side == 'low' else '+' -%}
    case
        when {{ std_error }} is null then null
        when {{ is_proportion }}
            then round(
                (
                    {{ value }} + {{ z }} ^ 2 / (2 * {{ n_eff }})
                    {{ sign }} {{ z }} * sqrt(
                        {{ value }} * (1 - {{ value }}) / {{ n_eff }}
                        + {{ z }} ^ 2 / (4 * {{ n_eff }} ^ 2)
                    )
                ) / (1 + {{ z }} ^ 2 / {{ n_eff }}),
                12
            )
        else {% if side == 'low' %}greatest{% else %}least{% endif %}(
            {{ value }} {{ sign }} {{ t_critical }} * {{ std_error }},
            coalesce(
                {{ scale_min if side == 'low' else scale_max }},
                {{ value }} {{ sign }} {{ t_critical }} * {{ std_error }}
            )
        )
    end
{%- endmacro %}


{% macro t_two_sided_p(t_expr, df_expr) -%}
    {#- Two-sided p-value of Student's t: P(|T| >= |t|), T with `df_expr`
        degrees of freedom; null below 1 degree. With x = sqrt(df) tan(u)
        the tail is c * integral from atan(|t| / sqrt(df)) to pi/2 of
        cos(u)^(df - 1) du, c = 2 gamma((df + 1) / 2) / (sqrt(pi)
        gamma(df / 2)): a bounded, smooth integrand, integrated by
        Simpson's rule on 2000 intervals. For large df the integrand is
        negligible (below e^-50 of its bound) beyond
        sqrt(u0^2 + 100 / (df - 1)), so the interval ends there. Checked
        against scipy.stats.t.sf by tests/test_compare.py. -#}
    {%- set df = '(' ~ df_expr ~ ')' -%}
    {%- set lo = 'atan(abs(' ~ t_expr ~ ') / sqrt(' ~ df ~ '))' -%}
    {%- set hi -%}
        case
            when {{ df }} <= 1 then pi() / 2
            else least(pi() / 2, sqrt({{ lo }} ^ 2 + 100.0 / ({{ df }} - 1)))
        end
    {%- endset -%}
    case
        when {{ df }} is null or {{ df }} < 1 or ({{ t_expr }}) is null then null
        else (
            select least(1.0, greatest(0.0,
                2 * exp(lgamma(({{ df }} + 1) / 2.0) - lgamma({{ df }} / 2.0))
                / sqrt(pi())
                * ({{ hi }} - {{ lo }}) / 6000.0
                * sum(
                    case
                        when i = 0 or i = 2000 then 1
                        when i % 2 = 1 then 4
                        else 2
                    end
                    * pow(greatest(cos(
                        {{ lo }} + i * ({{ hi }} - {{ lo }}) / 2000.0
                    ), 0), {{ df }} - 1)
                )
            ))
            from range(0, 2001) as simpson (i)
        )
    end
{%- endmacro %}
