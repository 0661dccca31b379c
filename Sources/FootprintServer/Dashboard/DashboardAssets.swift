/// The dashboard's stylesheet and its scripts, served from memory (no build step).
enum DashboardAssets {
    static let css = """
        :root { --ink: #1d2330; --muted: #5f6b7a; --line: #dde2ea; --bg: #f6f7f9; --accent: #2f6fdf;
          --s1: #2f6fdf; --s2: #e0742a; --s3: #2a9d6f; --bad: #b3261e; --good: #1e7a46; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
          color: var(--ink); background: var(--bg); }
        header { display: flex; align-items: center; gap: 16px; padding: 10px 24px; background: #fff;
          border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; font-size: 16px; }
        header .signout { margin-left: auto; }
        nav { display: flex; flex-wrap: wrap; gap: 4px; padding: 6px 24px; background: #fff; border-bottom: 1px solid var(--line); }
        nav a { padding: 6px 10px; border-radius: 6px; color: var(--ink); text-decoration: none; }
        nav a[aria-current=page] { background: var(--accent); color: #fff; }
        nav a:hover:not([aria-current=page]) { background: var(--bg); }
        main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }
        main.plain { max-width: 640px; }
        h1 { font-size: 22px; margin: 8px 0 12px; }
        h2 { font-size: 16px; margin: 24px 0 8px; }
        section, figure { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
        figure figcaption { font-weight: 600; margin-bottom: 6px; }
        .key { font-weight: 400; margin-left: 12px; color: var(--muted); white-space: nowrap; }
        .key .sample { vertical-align: middle; margin-right: 4px; }
        .chart { width: 100%; height: auto; }
        .chart .grid { stroke: var(--line); } .chart .axis, .chart .label, .chart .value { fill: var(--muted); font-size: 11px; }
        .chart .label { fill: var(--ink); font-size: 12px; }
        .line { fill: none; stroke-width: 2; } .line.s1 { stroke: var(--s1); } .line.s2 { stroke: var(--s2); } .line.s3 { stroke: var(--s3); }
        .dot.s1 { fill: var(--s1); } .dot.s2, .dot.s3 { fill: transparent; stroke-width: 1.5; }
        .dot.s2 { stroke: var(--s2); } .dot.s3 { stroke: var(--s3); }
        .bar { fill: var(--accent); }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 10px; margin: 12px 0; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
        .card .value { font-size: 20px; font-weight: 600; } .card .label { color: var(--muted); font-size: 12px; }
        .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
        @media (max-width: 900px) { .columns { grid-template-columns: 1fr; } }
        table { width: 100%; border-collapse: collapse; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { color: var(--muted); font-weight: 600; font-size: 12px; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        code { font: 12px ui-monospace, Menlo, Consolas, monospace; }
        code.path { word-break: break-all; }
        form.filters, fieldset.steps { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 8px 0 12px; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; }
        label { display: inline-flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
        form.definition label, form.page-name label { margin: 4px 12px 4px 0; }
        input, select, textarea, button { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); }
        input.wide { width: 420px; max-width: 100%; }
        textarea { width: 100%; font: 12px ui-monospace, Menlo, Consolas, monospace; }
        button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
        form.inline { display: inline; } form.danger button { background: #fff; color: var(--bad); border-color: var(--bad); }
        .actions { display: flex; gap: 8px; margin-top: 8px; }
        .notice { background: #e6f4ea; color: var(--good); padding: 8px 12px; border-radius: 6px; }
        .error { background: #fce8e6; color: var(--bad); padding: 8px 12px; border-radius: 6px; }
        .hint, .empty { color: var(--muted); }
        .heat { display: inline-block; min-width: 56px; padding: 2px 6px; border-radius: 4px; }
        .h0 { background: #f1f5fd; } .h1 { background: #dce7fb; } .h2 { background: #c6d8f8; } .h3 { background: #aec7f4; }
        .h4 { background: #94b5f0; } .h5 { background: #7aa3ec; color: #fff; } .h6 { background: #5f90e7; color: #fff; }
        .h7 { background: #477fe2; color: #fff; } .h8 { background: #3470dc; color: #fff; } .h9 { background: #2a62c6; color: #fff; }
        form.signin { max-width: 380px; margin: 12vh auto; background: #fff; border: 1px solid var(--line); border-radius: 10px;
          padding: 24px; display: flex; flex-direction: column; gap: 12px; }
        form.signin h1 { margin: 0; }
        #live td:last-child code { display: block; max-width: 460px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .screens-list td a { white-space: nowrap; }
        .snapshot-body { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
        .screen-frame { flex: 0 1 auto; }
        svg.screen { display: block; width: auto; height: auto; max-width: 100%; max-height: 78vh;
          border: 1px solid var(--line); border-radius: 14px; background: #fff; }
        svg.screen .backdrop { fill: #fbfcfd; }
        svg.screen .wire { fill: none; stroke: #b9c2cf; stroke-width: 1; }
        svg.screen .wire.k-button, svg.screen .wire.k-control, svg.screen .wire.k-switch { fill: #eef2f8; }
        svg.screen .wire-text { fill: var(--muted); font-family: -apple-system, "Segoe UI", Roboto, sans-serif; }
        svg.screen .hatch { stroke: #8a94a3; stroke-width: 3; }
        svg.screen .box { stroke: var(--accent); stroke-width: 1; fill: transparent; cursor: pointer; }
        svg.screen .box:hover, svg.screen .box.active { stroke-width: 3; stroke: var(--ink); }
        svg.screen .box.ignored { fill: url(#hatch); stroke: #8a94a3; stroke-dasharray: 4 3; fill-opacity: 0.8; cursor: not-allowed; }
        svg.screen .box.planned { stroke: var(--good); stroke-width: 2; }
        svg.screen .tap { fill: var(--bad); fill-opacity: 0.85; pointer-events: none; }
        svg.screen .tap-count { fill: #fff; font-size: 11px; font-weight: 700; pointer-events: none; }
        svg.screen .box.m1 { fill: #fde9a9; } svg.screen .box.m2 { fill: #fdd98b; } svg.screen .box.m3 { fill: #fcc56e; }
        svg.screen .box.m4 { fill: #fbae55; } svg.screen .box.m5 { fill: #f89540; } svg.screen .box.m6 { fill: #f27a30; }
        svg.screen .box.m7 { fill: #e65d25; } svg.screen .box.m8 { fill: #d5401d; } svg.screen .box.m9 { fill: #bd2418; }
        svg.screen .box:not(.m0):not(.ignored) { fill-opacity: 0.6; }
        .swatch { display: inline-block; width: 14px; height: 12px; border: 1px solid var(--line); vertical-align: middle; }
        .swatch.m0 { background: #fff; } .swatch.m1 { background: #fde9a9; } .swatch.m2 { background: #fdd98b; }
        .swatch.m3 { background: #fcc56e; } .swatch.m4 { background: #fbae55; } .swatch.m5 { background: #f89540; }
        .swatch.m6 { background: #f27a30; } .swatch.m7 { background: #e65d25; } .swatch.m8 { background: #d5401d; }
        .swatch.m9 { background: #bd2418; }
        .swatch.ignored { background: repeating-linear-gradient(45deg, #8a94a3 0 2px, #fff 2px 6px); }
        .element-info { flex: 1 1 280px; min-width: 260px; max-width: 460px; }
        .element-info dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 10px; margin: 0; }
        .element-info dt { color: var(--muted); font-size: 12px; } .element-info dd { margin: 0; word-break: break-all; }
        span.good { color: var(--good); font-weight: 600; } span.bad { color: var(--bad); font-weight: 600; }
        .connect svg { width: 160px; height: 160px; display: block; }
        .connect .link { word-break: break-all; }
        """

    static let liveScript = """
        (function () {
          "use strict";
          var table = document.getElementById("live");
          if (!table) { return; }
          var body = table.tBodies[0];
          var status = document.getElementById("live-status");
          var project = table.getAttribute("data-project");
          var newest = 0;
          function cell(row, text, code) {
            var td = row.insertCell(-1);
            if (code) { var c = document.createElement("code"); c.textContent = text; c.title = text; td.appendChild(c); }
            else { td.textContent = text; }
          }
          function poll() {
            var url = "/live.json?after=" + newest + (project ? "&project=" + encodeURIComponent(project) : "");
            fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
              .then(function (response) {
                if (!response.ok) { throw new Error("HTTP " + response.status); }
                return response.json();
              })
              .then(function (answer) {
                var events = answer.events.slice().reverse();
                events.forEach(function (event) {
                  newest = Math.max(newest, event.sequence);
                  var row = body.insertRow(0);
                  cell(row, event.receivedAt.replace("T", " ").replace("Z", ""));
                  cell(row, event.type); cell(row, event.name); cell(row, event.page); cell(row, event.person);
                  cell(row, event.message, true);
                });
                while (body.rows.length > 200) { body.deleteRow(-1); }
                status.textContent = body.rows.length + " shown, updated " + new Date().toLocaleTimeString();
              })
              .catch(function (error) { status.textContent = "Not updated: " + error.message; })
              .then(function () { setTimeout(poll, 2000); });
          }
          poll();
        })();
        """

    /// The Screens page's script: the hover panel of the snapshot's boxes and, while a connect
    /// session is open, the live view (polls `/screens/live.json` every second and swaps in the
    /// newest snapshot). Every client text is set as `textContent`, never parsed as HTML.
    static let screensScript = """
        (function () {
          "use strict";
          var labels = [["Path", "data-path"], ["Similar path", "data-similar-path"], ["Text", "data-text"],
            ["Kind", "data-kind"], ["Clicks (exact)", "data-clicks"], ["People (exact)", "data-people"],
            ["Clicks (similar)", "data-similar-clicks"], ["People (similar)", "data-similar-people"],
            ["Taps this session", "data-taps"], ["In the plan", "data-planned"]];
          function show(box) {
            var panel = document.getElementById("element-info");
            if (!panel) { return; }
            var list = document.createElement("dl");
            labels.forEach(function (pair) {
              var value = box.getAttribute(pair[1]);
              if (value === null) { return; }
              var term = document.createElement("dt"); term.textContent = pair[0];
              var detail = document.createElement("dd"); detail.textContent = value === "" ? "–" : value;
              detail.setAttribute("data-field", pair[1]);
              list.appendChild(term); list.appendChild(detail);
            });
            if (box.getAttribute("data-ignored")) {
              var note = document.createElement("p"); note.textContent = "Ignored: never captured.";
              panel.replaceChildren(note);
              return;
            }
            panel.replaceChildren(list);
            document.querySelectorAll("svg.screen .box.active").forEach(function (other) {
              other.classList.remove("active");
            });
            box.classList.add("active");
          }
          document.addEventListener("mouseover", function (event) {
            var target = event.target;
            if (target && target.classList && target.classList.contains("box")) { show(target); }
          });
          document.addEventListener("focusin", function (event) {
            var box = event.target && event.target.querySelector ? event.target.querySelector(".box") : null;
            if (box) { show(box); }
          });
          var live = document.getElementById("live-snapshot");
          if (!live) { return; }
          var status = document.getElementById("connect-status");
          var svg = "http://www.w3.org/2000/svg";
          // A tap on a shown box: one more on its count and its marker.
          function mark(path) {
            live.querySelectorAll("rect.box[data-path]").forEach(function (box) {
              if (box.getAttribute("data-path") !== path) { return; }
              var taps = (parseInt(box.getAttribute("data-taps"), 10) || 0) + 1;
              box.setAttribute("data-taps", String(taps));
              box.classList.add("tapped");
              var link = box.parentNode;
              var count = link.querySelector("text.tap-count");
              if (!count) {
                var x = parseFloat(box.getAttribute("x")) + parseFloat(box.getAttribute("width")) / 2;
                var y = parseFloat(box.getAttribute("y")) + parseFloat(box.getAttribute("height")) / 2;
                var dot = document.createElementNS(svg, "circle");
                dot.setAttribute("class", "tap"); dot.setAttribute("cx", x); dot.setAttribute("cy", y);
                dot.setAttribute("r", "9");
                count = document.createElementNS(svg, "text");
                count.setAttribute("class", "tap-count"); count.setAttribute("x", x); count.setAttribute("y", y + 4);
                count.setAttribute("text-anchor", "middle");
                link.appendChild(dot); link.appendChild(count);
              }
              count.textContent = String(taps);
            });
          }
          function poll() {
            var url = "/screens/live.json?session=" + encodeURIComponent(live.getAttribute("data-session"))
              + "&snapshot=" + encodeURIComponent(live.getAttribute("data-snapshot"))
              + "&after=" + encodeURIComponent(live.getAttribute("data-cursor")) + "&" + live.getAttribute("data-query");
            fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
              .then(function (response) {
                if (!response.ok) { throw new Error("HTTP " + response.status); }
                return response.json();
              })
              .then(function (answer) {
                if (typeof answer.html === "string") { live.innerHTML = answer.html; }
                (answer.taps || []).forEach(mark);
                live.setAttribute("data-snapshot", String(answer.snapshot));
                live.setAttribute("data-cursor", String(answer.cursor));
                status.textContent = answer.open ? "Following the device, updated " + new Date().toLocaleTimeString()
                  : "The session has ended.";
                if (answer.open) { setTimeout(poll, 1000); }
              })
              .catch(function (error) { status.textContent = "Not updated: " + error.message; setTimeout(poll, 2000); });
          }
          poll();
        })();
        """
}
