// The HTML report's style sheet and its self-check script (html_report.h), kept apart from the
// code that writes the page.

#ifndef PARTKV_TOOLS_BENCH_HTML_STYLE_H_
#define PARTKV_TOOLS_BENCH_HTML_STYLE_H_

namespace partkv::compare {

// System fonts only (nothing is downloaded); numbers in tabular figures so columns line up.
inline constexpr const char* kReportCss = R"css(
:root { --ink:#1f2933; --muted:#52606d; --line:#e4e7eb; --bg:#f4f6f8; --card:#fff;
        --good:#0b6e3f; --bad:#b42318; --accent:#0072B2; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue",
             "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1260px; margin: 0 auto; padding: 36px 28px 56px; }
.kicker { margin: 0; color: var(--accent); font-weight: 600; font-size: 12px;
          letter-spacing: .08em; text-transform: uppercase; }
h1 { font-size: 28px; line-height: 1.2; margin: 4px 0 6px; font-weight: 700;
     letter-spacing: -0.01em; }
h2 { font-size: 19px; margin: 0 0 4px; font-weight: 650; }
h3 { font-size: 14px; margin: 0 0 6px; font-weight: 650; }
.sub { color: var(--muted); margin: 0; }
.chips { display: flex; flex-wrap: wrap; gap: 8px; margin: 18px 0 0; }
.chip { background: var(--card); border: 1px solid var(--line); border-radius: 999px;
        padding: 4px 12px; font-size: 13px; color: var(--muted); }
.chip b { color: var(--ink); font-variant-numeric: tabular-nums; }
section { margin-top: 34px; }
.lead { color: var(--muted); margin: 0 0 14px; max-width: 92ch; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
        padding: 16px 18px; box-shadow: 0 1px 2px rgba(16, 24, 40, .05); }
.grid { display: grid; gap: 16px; }
.g3 { grid-template-columns: repeat(auto-fill, minmax(350px, 1fr)); }
.g2 { grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); }
.g2 + .card { margin-top: 16px; }
.note { color: var(--muted); font-size: 12px; margin: -2px 0 8px; }
.stats { font-size: 12px; color: var(--muted); margin: 6px 0 0; font-variant-numeric: tabular-nums; }
.stats b { color: var(--ink); }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
       background: #f0f2f5; border-radius: 4px; padding: 0 4px; }
svg { display: block; max-width: 100%; height: auto; overflow: visible; }
svg text { font-family: inherit; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px;
        font-variant-numeric: tabular-nums; }
th, td { padding: 7px 8px; border-bottom: 1px solid var(--line); text-align: right;
         white-space: nowrap; }
th { color: var(--muted); font-weight: 600; font-size: 12px; vertical-align: bottom;
     white-space: normal; line-height: 1.25; }
#summary th:not(.group) { min-width: 50px; }
th.group { text-align: center; color: var(--ink); border-bottom: 2px solid var(--line); }
td:first-child, th:first-child { text-align: left; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr:hover td { background: #f8fafc; }
td.name { font-weight: 600; }
#summary { font-size: 12px; }
#summary th, #summary td { padding: 7px 5px; }
td.best { color: var(--good); font-weight: 700; }
td.worst { color: var(--bad); }
.how td, .how th { text-align: left; white-space: normal; }
.findings { margin: 0; padding-left: 0; list-style: none; }
.findings li { display: grid; grid-template-columns: 230px 1fr; gap: 12px; padding: 8px 0;
               border-bottom: 1px solid var(--line); }
.findings li:last-child { border-bottom: 0; }
.findings .m { color: var(--muted); font-size: 11px; padding-top: 2px;
               text-transform: uppercase; letter-spacing: .05em; }
.heat-legend { display: flex; align-items: center; gap: 10px; font-size: 12px;
               color: var(--muted); margin: 0 0 12px; }
.heat-legend i { display: inline-block; width: 180px; height: 10px; border-radius: 5px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 18px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
footer { margin-top: 36px; color: var(--muted); font-size: 12px; }
@media (max-width: 700px) { .g2 { grid-template-columns: 1fr; } main { padding: 20px 14px; } }
)css";

// fmt format string: {0} the strategies' labels as JS string literals, {1} the physical
// partition count, {2} the number of charts the report draws. Sets data-report-check on <html>
// (see html_report.h).
inline constexpr const char* kCheckScriptTemplate = R"js(<script>
(function () {{
  var root = document.documentElement;
  var expected = [{0}];
  var partitions = {1};
  var errors = [];
  function report() {{
    root.setAttribute('data-report-check', errors.length ? 'error: ' + errors.join('; ') :
        'ok: ' + expected.length + ' strategies, ' +
        document.querySelectorAll('svg.heat').length + ' heat histograms, ' +
        document.querySelectorAll('svg.chart').length + ' charts');
  }}
  window.addEventListener('error', function (e) {{ errors.push(String(e.message)); report(); }});
  try {{
    var heat = document.querySelectorAll('svg.heat');
    var seen = {{}};
    for (var i = 0; i < heat.length; i++) {{
      var name = heat[i].getAttribute('data-strategy');
      var bars = heat[i].querySelectorAll('rect').length;
      if (bars < partitions) errors.push(name + ': ' + bars + ' bars for ' + partitions + ' partitions');
      var box = heat[i].getBoundingClientRect();
      if (!(box.width > 0 && box.height > 0)) errors.push(name + ': the histogram has no size');
      seen[name] = true;
    }}
    for (var j = 0; j < expected.length; j++) {{
      if (!seen[expected[j]]) errors.push('no heat histogram for ' + expected[j]);
    }}
    var charts = document.querySelectorAll('svg.chart');
    if (charts.length < {2}) errors.push('only ' + charts.length + ' charts');
    for (var k = 0; k < charts.length; k++) {{
      var b = charts[k].getBoundingClientRect();
      if (!(b.width > 0 && b.height > 0)) errors.push('chart ' + charts[k].getAttribute('data-chart') + ' has no size');
    }}
  }} catch (e) {{
    errors.push(String(e));
  }}
  report();
}})();
</script>)js";

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_HTML_STYLE_H_
