// agent-eval viewer: draws the trend charts of the series page with uPlot
// (vendored, served by the app). Each chart's data sits in a
// <script type="application/json" id="..."> block next to its <div
// data-chart="...">; nothing is fetched and nothing is computed here beyond
// placing the mart's values on axes.
(function () {
  "use strict";

  function band(u, low, high) {
    return [{ series: [high, low], fill: "rgba(9, 105, 218, 0.12)" }];
  }

  // a value in the legend: the tables' three decimals; "–" when missing
  function fixed3(u, v) { return v == null ? "–" : v.toFixed(3); }

  // uPlot's legend shows the hovered point; with the cursor off the chart it
  // would show "--": show the latest point (the newest set) instead
  function showLatest(u) {
    if (u.cursor.idx == null && u.data[0].length) {
      u.setLegend({ idx: u.data[0].length - 1 });
    }
  }

  function draw(el) {
    var data = JSON.parse(document.getElementById(el.dataset.chart).textContent);
    var dates = data.dates;
    var width = Math.max(320, el.clientWidth || 540);
    var opts = {
      width: width,
      height: 260,
      scales: { x: { time: false, range: function (u, min, max) { return [min - 0.35, max + 0.35]; } } },
      axes: [
        { values: function (u, ticks) { return ticks.map(function (t) { return Number.isInteger(t) && dates[t] ? dates[t] : ""; }); } },
        {}
      ],
      series: [
        { label: "set" , value: function (u, v) { return v == null ? "" : dates[v] || ""; } },
        { label: "value", stroke: "#0969da", width: 2, points: { show: true, size: 6 }, value: fixed3 },
        { label: "95% low", stroke: "rgba(9, 105, 218, 0.35)", width: 1, value: fixed3 },
        { label: "95% high", stroke: "rgba(9, 105, 218, 0.35)", width: 1, value: fixed3 },
        { label: "rolling 7", stroke: "#9a6700", width: 1.5, dash: [6, 4], value: fixed3 },
        { label: "baseline", stroke: "#cf222e", width: 1.5, dash: [2, 3], value: fixed3 }
      ],
      bands: band(null, 2, 3),
      hooks: { ready: [showLatest], setCursor: [showLatest] }
    };
    var rows = [data.x, data.value, data.ci_low, data.ci_high, data.rolling_7, data.baseline];
    el.textContent = "";
    new uPlot(opts, rows, el);
    el.dataset.drawn = "true";
  }

  function drawAll() {
    if (typeof uPlot === "undefined") { return; }
    document.querySelectorAll("[data-chart]").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
