"use strict";
// The case table of report.html: filter, sort and page through the cases embedded as JSON.
// Every text from the data goes through textContent, never innerHTML.
(function () {
  var D = JSON.parse(document.getElementById("case-data").textContent);
  var PAGE = 50;
  // an answer scored (status D.answered) is a hit or a miss on D.hit; any other status is its own outcome
  var OUTCOMES = ["hit", "miss"].concat(D.statuses.filter(function (s) { return s !== D.answered; }));
  // answer fields, see html_cases.case_json
  var STATUS = 0, LATENCY = 1, METRIC = 2, F1 = 3, HIT = 4, PATHS = 5, COUNT = 6, ERROR = 7, FAILURE = 8;
  var COST = 9, TOKENS_IN = 10, TOKENS_OUT = 11;  // only when D.cost: some agent returned a cost or tokens
  var state = { page: 0, sort: "case", descending: false, search: "", agents: D.agents.map(function () { return "any"; }) };
  var haystacks = null;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }

  function truthSet(row) {
    var set = {};
    row[3].forEach(function (i) { set[i] = true; });
    return set;
  }

  function outcome(row, answer) {
    if (!answer) { return "none"; }
    if (answer[STATUS] !== D.answered) { return answer[STATUS]; }  // one of D.statuses
    if (answer[HIT] !== null) { return answer[HIT] > 0 ? "hit" : "miss"; }
    var truth = truthSet(row);
    return answer[PATHS].some(function (i) { return truth[i]; }) ? "hit" : "miss";
  }

  function haystack(row) {
    var parts = [row[0], row[1], row[2]];
    row[3].forEach(function (i) { parts.push(D.paths[i]); });
    return parts.join("\n").toLowerCase();
  }

  function matches(row, index) {
    for (var a = 0; a < D.agents.length; a++) {
      var wanted = state.agents[a];
      if (wanted !== "any" && outcome(row, row[7][a]) !== wanted) { return false; }
    }
    if (!state.search) { return true; }
    if (haystacks === null) { haystacks = D.cases.map(haystack); }
    return haystacks[index].indexOf(state.search) !== -1;
  }

  function sortKey(row) {
    if (state.sort === "case") { return row[0] + "\u0000" + row[1]; }
    if (state.sort === "query") { return row[2].toLowerCase(); }
    var parts = state.sort.split(":");
    var answer = row[7][Number(parts[1])];
    var field = parts[0] === "latency" ? LATENCY : parts[0] === "cost" ? COST : METRIC;
    var value = answer ? answer[field] : null;
    return value === null || value === undefined ? null : value;
  }

  function compare(x, y) {
    var a = x.key, b = y.key;
    if (a === b) { return x.index - y.index; }
    if (a === null) { return 1; }  // missing values last in either direction
    if (b === null) { return -1; }
    var order = a < b ? -1 : 1;
    return state.descending ? -order : order;
  }

  function visibleRows() {
    var rows = [];
    D.cases.forEach(function (row, index) {
      if (matches(row, index)) { rows.push({ row: row, index: index, key: sortKey(row) }); }
    });
    rows.sort(compare);
    return rows.map(function (item) { return item.row; });
  }

  // a path that wraps breaks after a "/" (a <wbr> after each), never inside a name
  function pathItem(path, cls) {
    var item = el("li", null, cls);
    path.split("/").forEach(function (part, n, parts) {
      item.appendChild(document.createTextNode(n < parts.length - 1 ? part + "/" : part));
      if (n < parts.length - 1) { item.appendChild(document.createElement("wbr")); }
    });
    return item;
  }

  function pathList(row, answer) {
    var truth = truthSet(row);
    var list = el("ol");
    answer[PATHS].forEach(function (i) { list.appendChild(pathItem(D.paths[i], truth[i] ? "hit" : "")); });
    return list;
  }

  function grouped(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function costFigures(answer) {  // "$0.0012", "1,200 in / 80 out tokens"
    var figures = [];
    if (answer[COST] !== null) { figures.push("$" + answer[COST].toFixed(4)); }
    var tokens = [[TOKENS_IN, " in"], [TOKENS_OUT, " out"]].filter(function (t) { return answer[t[0]] !== null; });
    if (tokens.length) {
      figures.push(tokens.map(function (t) { return grouped(answer[t[0]]) + t[1]; }).join(" / ") + " tokens");
    }
    return figures;
  }

  function answerCell(row, answer) {
    var cell = el("td");
    var result = outcome(row, answer);
    if (result === "none") { cell.textContent = "not run"; return cell; }
    cell.appendChild(el("span", result, "status " + result));
    var figures = [];
    if (answer[METRIC] !== null) { figures.push((D.metric || "score") + " " + answer[METRIC].toFixed(3)); }
    if (answer[F1] !== null && D.metric !== "f1") { figures.push("f1 " + answer[F1].toFixed(3)); }
    if (answer[LATENCY] !== null) { figures.push(answer[LATENCY].toFixed(2) + " ms"); }
    if (D.cost) { figures = figures.concat(costFigures(answer)); }
    if (answer[FAILURE]) { figures.push(answer[FAILURE]); }
    cell.appendChild(el("span", " " + figures.join(" · ")));
    if (answer[ERROR]) { cell.appendChild(el("div", answer[ERROR], "error-text")); }
    cell.appendChild(pathList(row, answer));
    if (answer[COUNT] > answer[PATHS].length) {
      cell.appendChild(el("small", "first " + answer[PATHS].length + " of " + answer[COUNT]));
    }
    return cell;
  }

  function renderRow(row) {
    var tr = el("tr");
    var id = el("td");
    id.appendChild(el("div", row[1]));
    id.appendChild(el("small", [row[0], row[4], row[5], row[6]].filter(Boolean).join(" · ")));
    tr.appendChild(id);
    tr.appendChild(el("td", row[2], "query"));
    var truth = el("td");
    var list = el("ul");
    row[3].forEach(function (i) { list.appendChild(pathItem(D.paths[i], "")); });
    truth.appendChild(list);
    tr.appendChild(truth);
    row[7].forEach(function (answer) { tr.appendChild(answerCell(row, answer)); });
    return tr;
  }

  function render() {
    var rows = visibleRows();
    var pages = Math.max(1, Math.ceil(rows.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE;
    var body = document.createElement("tbody");
    rows.slice(start, start + PAGE).forEach(function (row) { body.appendChild(renderRow(row)); });
    var table = document.getElementById("case-table");
    table.replaceChild(body, table.tBodies[0]);
    document.getElementById("summary").textContent = rows.length + " of " + D.cases.length +
      " cases match; hit means " + (D.hit || "a relevant path among the shown ones") + " > 0.";
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
    document.documentElement.setAttribute("data-rows", String(body.rows.length));
    document.documentElement.setAttribute("data-matches", String(rows.length));
  }

  // the view lives in the address's fragment (#hit=bm25&miss=dense&sort=latency:0&desc=1&q=text)
  // so that a filtered view can be bookmarked or linked; agent names are values, never keys
  function readHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    OUTCOMES.forEach(function (outcome) {
      params.getAll(outcome).forEach(function (agent) {
        var a = D.agents.indexOf(agent);
        if (a !== -1) { state.agents[a] = outcome; }
      });
    });
    state.search = (params.get("q") || "").toLowerCase();
    state.sort = params.get("sort") || "case";
    state.descending = params.get("desc") === "1";
    state.page = Math.max(0, (Number(params.get("page")) || 1) - 1);
  }

  function writeHash() {
    var params = new URLSearchParams();
    D.agents.forEach(function (agent, a) { if (state.agents[a] !== "any") { params.append(state.agents[a], agent); } });
    if (state.search) { params.set("q", state.search); }
    if (state.sort !== "case") { params.set("sort", state.sort); }
    if (state.descending) { params.set("desc", "1"); }
    if (state.page > 0) { params.set("page", String(state.page + 1)); }
    history.replaceState(null, "", "#" + params.toString());
  }

  function update() {
    writeHash();
    render();
  }

  function option(select, value, text) {
    var node = el("option", text);
    node.value = value;
    select.appendChild(node);
  }

  function buildHeader() {
    var head = el("tr");
    var widths = ["9%", "18%", "13%"];
    ["case", "query", "ground truth"].forEach(function (name, i) {
      var th = el("th", name);
      th.style.width = widths[i];
      head.appendChild(th);
    });
    D.agents.forEach(function (agent) { head.appendChild(el("th", agent)); });
    document.getElementById("case-table").tHead.appendChild(head);
  }

  function buildControls() {
    var box = document.getElementById("agent-filters");
    D.agents.forEach(function (agent, a) {
      var label = el("label", agent + " ");
      var select = el("select");
      ["any"].concat(OUTCOMES).forEach(function (v) { option(select, v, v); });
      select.value = state.agents[a];
      select.addEventListener("change", function () { state.agents[a] = select.value; state.page = 0; update(); });
      label.appendChild(select);
      box.appendChild(label);
    });
    var sort = document.getElementById("sort");
    option(sort, "case", "gold set, case id");
    option(sort, "query", "query");
    D.agents.forEach(function (agent, a) {
      option(sort, "metric:" + a, agent + ": " + (D.metric || "score"));
      option(sort, "latency:" + a, agent + ": latency");
      if (D.cost) { option(sort, "cost:" + a, agent + ": cost"); }
    });
    sort.value = state.sort;
    sort.addEventListener("change", function () { state.sort = sort.value; state.page = 0; update(); });
    var direction = document.getElementById("direction");
    direction.textContent = state.descending ? "descending" : "ascending";
    direction.addEventListener("click", function () {
      state.descending = !state.descending;
      direction.textContent = state.descending ? "descending" : "ascending";
      update();
    });
    var search = document.getElementById("search");
    search.value = state.search;
    search.addEventListener("input", function () { state.search = search.value.toLowerCase(); state.page = 0; update(); });
    document.getElementById("prev").addEventListener("click", function () { state.page -= 1; update(); });
    document.getElementById("next").addEventListener("click", function () { state.page += 1; update(); });
  }

  readHash();
  buildHeader();
  buildControls();
  render();
  document.documentElement.setAttribute("data-ready-ms", performance.now().toFixed(1));
})();
