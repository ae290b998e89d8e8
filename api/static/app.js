/* flowcore web UI: a single page over the REST API (/api/v1), plain JavaScript.
 *
 * Pages are hash routes (#/flow, #/queue/NAME, #/provenance, #/event/ID, #/lineage/UUID,
 * #/bulletins). Live pages poll the API; every request carries the bearer token the user
 * gave (kept in sessionStorage), so the UI has exactly the API's authentication.
 */
"use strict";

const API = "api/v1";
const POLL_MS = 2000;
const TOKEN_KEY = "flowcore.token";
const EVENT_TYPES = [
  "CREATE", "RECEIVE", "FETCH", "SEND", "REMOTE_INVOCATION", "DOWNLOAD", "DROP", "EXPIRE",
  "FORK", "JOIN", "CLONE", "CONTENT_MODIFIED", "ATTRIBUTES_MODIFIED", "ROUTE", "ADDINFO",
  "REPLAY", "UNKNOWN",
];

const state = {
  timers: [],
  graph: null, // the flow's topology (GET /flow/graph)
  status: null, // the flow's live status (GET /flow)
  selected: null, // the processor shown in the panel
  bulletinsSeen: 0,
  lineage: null, // {nodes: Map, links: Map}
  cy: null,
};

// -- helpers ------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (token()) headers.Authorization = `Bearer ${token()}`;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(options.json);
  }
  const response = await fetch(`${API}${path}`, {
    method: options.method || "GET",
    headers,
    body: options.body,
  });
  if (response.status === 401) {
    askForToken(token() ? "The token was not accepted." : "");
    throw new ApiError(401, "a bearer token is required");
  }
  if (!response.ok) {
    let detail = response.statusText;
    try {
      detail = (await response.json()).detail || detail;
    } catch (_) { /* not JSON */ }
    throw new ApiError(response.status, detail);
  }
  if (options.raw) return response;
  return response.json();
}

function askForToken(message) {
  const dialog = document.getElementById("login");
  document.getElementById("login-error").textContent = message;
  if (!dialog.open) dialog.showModal();
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A data size as NiFi writes it: "42 bytes", "1.5 KB". */
function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = "bytes";
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${Number(value.toFixed(2))} ${unit}`;
}

function formatCount(count) {
  return Number(count).toLocaleString("en-US");
}

/** Epoch milliseconds as the node's UTC time. */
function formatTime(ms) {
  if (ms === null || ms === undefined) return "";
  return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
}

function formatDuration(ms) {
  if (ms < 1000) return `${ms} millis`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} sec`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} sec`;
  return `${Math.floor(minutes / 60)} hours ${minutes % 60} min`;
}

function clearTimers() {
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
}

function poll(fn) {
  const run = () => fn().catch(showError);
  run();
  state.timers.push(setInterval(run, POLL_MS));
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) return;
  const line = document.getElementById("status-line");
  line.textContent = error.message || String(error);
  line.className = "status-line error";
}

function clearError() {
  const line = document.getElementById("status-line");
  line.textContent = `updated ${new Date().toLocaleTimeString("en-GB")}`;
  line.className = "status-line";
}

async function download(path, fallbackName) {
  const response = await api(path, { raw: true });
  const blob = await response.blob();
  const disposition = response.headers.get("Content-Disposition") || "";
  const match = /filename="([^"]+)"/.exec(disposition);
  const link = h("a", { href: URL.createObjectURL(blob), download: match ? match[1] : fallbackName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

/** Replace an element's children, leaving out the null ones of conditional parts. */
function put(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

function table(headers, rows, attrs = {}) {
  return h("table", Object.assign({ class: "grid" }, attrs),
    h("thead", {}, h("tr", {}, headers.map((name) => h("th", {}, name)))),
    h("tbody", {}, rows));
}

function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}\u2026` : text;
}

function shortUuid(uuid) {
  return uuid ? uuid.slice(0, 8) : "";
}

// -- the summary bar (NiFi's status bar) ------------------------------------------------------

function renderSummary() {
  const bar = document.getElementById("summary");
  const status = state.status;
  if (!status) return;
  const running = status.processors.filter((p) => p.run_state === "RUNNING").length;
  const stopped = status.processors.length - running;
  const queued = status.connections.reduce((sum, c) => sum + c.queued_count, 0);
  const bytes = status.connections.reduce((sum, c) => sum + c.queued_bytes, 0);
  put(bar,
    h("span", { title: "Running components" }, h("span", { class: "run-icon running" }, "\u25B6"), ` ${running}`),
    h("span", { title: "Stopped components" }, h("span", { class: "run-icon stopped" }, "\u25A0"), ` ${stopped}`),
    h("span", { id: "summary-queued", title: "FlowFiles queued / bytes" },
      `Queued ${formatCount(queued)} / ${formatBytes(bytes)}`),
  );
}

async function refreshStatus() {
  state.status = await api("/flow");
  renderSummary();
  clearError();
  return state.status;
}

async function refreshBulletinBadge() {
  const board = await api("/bulletins?limit=100");
  const count = board.bulletinBoard.bulletins.length;
  const badge = document.getElementById("bulletin-badge");
  badge.hidden = count === 0;
  badge.textContent = count;
  return board.bulletinBoard.bulletins;
}

// -- the flow canvas ---------------------------------------------------------------------

const SIZES = {
  PROCESSOR: { width: 280, height: 112 },
  INPUT_PORT: { width: 190, height: 44 },
  FUNNEL: { width: 56, height: 56 },
  LABEL: { width: 200, height: 66 },
};

async function pageFlow(main) {
  state.graph = await api("/flow/graph");
  document.getElementById("flow-name").textContent = state.graph.name;
  const canvas = h("div", { class: "canvas", id: "canvas" });
  const panel = h("aside", { class: "panel", id: "panel", hidden: true });
  put(main, h("div", { class: "flow-page" }, canvas, panel));
  const layout = layoutFlow(state.graph);
  drawFlow(canvas, layout);
  poll(async () => {
    const [status, bulletins] = await Promise.all([refreshStatus(), refreshBulletinBadge()]);
    updateFlow(status, bulletins);
    if (state.selected) await renderPanel(status, bulletins);
  });
}

function layoutFlow(graph) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 70, ranksep: 60, edgesep: 40, marginx: 30, marginy: 30 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const component of graph.components) {
    g.setNode(component.id, Object.assign({ component }, SIZES[component.kind]));
  }
  for (const connection of graph.connections) {
    if (connection.destination === null) continue;
    g.setEdge(connection.source, connection.destination,
      Object.assign({ connection, labelpos: "c" }, SIZES.LABEL), connection.name);
  }
  dagre.layout(g);
  return g;
}

function drawFlow(canvas, g) {
  const { width, height } = g.graph();
  const view = { x: 0, y: 0, scale: 1 };
  const root = s("g", { class: "viewport" });
  const svg = s("svg", { class: "flow-svg", id: "flow-svg", width: "100%", height: "100%" },
    s("defs", {},
      s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" },
        s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head" })),
      s("pattern", { id: "grid", width: 16, height: 16, patternUnits: "userSpaceOnUse" },
        s("path", { d: "M 16 0 L 0 0 0 16", class: "grid-line" }))),
    s("rect", { class: "canvas-bg", width: "100%", height: "100%", fill: "url(#grid)" }),
    root);
  const edges = s("g", { class: "edges" });
  const nodes = s("g", { class: "nodes" });
  const labels = s("g", { class: "labels" });
  root.append(edges, nodes, labels);
  for (const e of g.edges()) {
    const edge = g.edge(e);
    const points = edge.points;
    const d = points.map((p, i) => `${i ? "L" : "M"} ${p.x} ${p.y}`).join(" ");
    edges.append(s("path", { d, class: "edge", "marker-end": "url(#arrow)" }));
    labels.append(drawConnectionLabel(edge.connection, edge.x, edge.y));
  }
  for (const id of g.nodes()) {
    const node = g.node(id);
    nodes.append(drawComponent(node.component, node.x - node.width / 2, node.y - node.height / 2));
  }
  put(canvas, svg);
  // Fit to the canvas, then pan by dragging and zoom with the wheel.
  const fit = () => {
    const box = canvas.getBoundingClientRect();
    view.scale = Math.min(1, box.width / width, box.height / height) || 1;
    view.x = (box.width - width * view.scale) / 2;
    view.y = Math.max(0, (box.height - height * view.scale) / 2);
    apply();
  };
  const apply = () => root.setAttribute("transform", `translate(${view.x} ${view.y}) scale(${view.scale})`);
  let drag = null;
  svg.addEventListener("mousedown", (event) => {
    if (event.target.closest(".component, .connection-label")) return;
    drag = { x: event.clientX - view.x, y: event.clientY - view.y };
  });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    view.x = event.clientX - drag.x;
    view.y = event.clientY - drag.y;
    apply();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const factor = event.deltaY < 0 ? 1.1 : 1 / 1.1;
    const box = svg.getBoundingClientRect();
    const px = event.clientX - box.left;
    const py = event.clientY - box.top;
    view.x = px - (px - view.x) * factor;
    view.y = py - (py - view.y) * factor;
    view.scale *= factor;
    apply();
  }, { passive: false });
  fit();
}

function drawComponent(component, x, y) {
  const { width, height } = SIZES[component.kind];
  const group = s("g", {
    class: `component ${component.kind.toLowerCase().replace("_", "-")}`,
    transform: `translate(${x} ${y})`,
    dataset: { name: component.name, kind: component.kind },
    onclick: () => selectComponent(component),
  });
  if (component.kind === "FUNNEL") {
    group.append(
      s("circle", { cx: width / 2, cy: height / 2, r: width / 2 - 2, class: "funnel-body" }),
      s("path", { d: `M ${width / 2 - 14} ${height / 2 - 10} L ${width / 2 + 14} ${height / 2 - 10} L ${width / 2 + 4} ${height / 2 + 2} L ${width / 2 + 4} ${height / 2 + 12} L ${width / 2 - 4} ${height / 2 + 12} L ${width / 2 - 4} ${height / 2 + 2} Z`, class: "funnel-glyph" }),
      s("title", {}, `Funnel ${component.name}`),
      s("text", { x: width / 2, y: height + 14, class: "funnel-name", "text-anchor": "middle" }, component.name),
    );
    return group;
  }
  if (component.kind === "INPUT_PORT") {
    group.append(
      s("rect", { width, height, rx: 2, class: "box port-box" }),
      s("rect", { width: 34, height, class: "port-icon-bg" }),
      s("path", { d: "M 11 12 L 25 22 L 11 32 Z", class: "port-glyph" }),
      s("text", { x: 44, y: 27, class: "name" }, component.name),
      s("title", {}, `Input Port ${component.name}`),
    );
    return group;
  }
  group.append(
    s("rect", { width, height, rx: 2, class: "box processor-box" }),
    s("rect", { width, height: 40, class: "processor-header" }),
    s("g", { class: "run-state", transform: "translate(10 10)" },
      s("rect", { width: 20, height: 20, rx: 2, class: "run-state-bg" }),
      s("text", { x: 10, y: 15, "text-anchor": "middle", class: "run-state-glyph" }, "")),
    s("text", { x: 38, y: 18, class: "name" }, component.name),
    s("text", { x: 38, y: 33, class: "type" }, component.type),
    s("g", { class: "bulletin-flag", transform: `translate(${width - 24} 10)`, visibility: "hidden" },
      s("rect", { width: 16, height: 16, rx: 2 }),
      s("text", { x: 8, y: 12, "text-anchor": "middle" }, "!"),
      s("title", { class: "bulletin-title" }, "")),
  );
  const rows = [["In", "stat-in"], ["Out", "stat-out"], ["Tasks", "stat-tasks"]];
  rows.forEach(([label, cls], i) => {
    const rowY = 58 + i * 18;
    group.append(
      s("text", { x: 12, y: rowY, class: "stat-label" }, label),
      s("text", { x: 70, y: rowY, class: `stat-value ${cls}` }, "0 (0 bytes)"),
    );
  });
  return group;
}

function drawConnectionLabel(connection, cx, cy) {
  const { width, height } = SIZES.LABEL;
  const x = cx - width / 2;
  const y = cy - height / 2;
  const relationships = connection.relationships.filter((r) => r !== "__port__").join(", ");
  // A connection the flow left unnamed is called source.relationship->destination: show
  // its relationships instead, as NiFi's canvas does.
  const named = !connection.name.includes("->");
  const heading = clip(named ? connection.name : relationships || connection.name, 26);
  const group = s("g", {
    class: "connection-label",
    transform: `translate(${x} ${y})`,
    dataset: {
      name: connection.name,
      describe: `${connection.name}: ${connection.source} \u2192 ${connection.destination} (${relationships || "from the port"})`,
    },
    onclick: () => { location.hash = `#/queue/${encodeURIComponent(connection.name)}`; },
  },
  s("rect", { width, height, rx: 2, class: "label-box" }),
  s("text", { x: 8, y: 16, class: "label-name" }, heading),
  s("text", { x: width - 8, y: 16, class: "label-rel", "text-anchor": "end" },
    named && relationships && heading.length + relationships.length < 30 ? relationships : ""),

  s("text", { x: 8, y: 35, class: "stat-label" }, "Queued"),
  s("text", { x: 60, y: 35, class: "queued" }, "0 (0 bytes)"),
  s("rect", { x: 8, y: 45, width: width / 2 - 12, height: 8, class: "fill-track" }),
  s("rect", { x: 8, y: 45, width: 0, height: 8, class: "fill fill-count" }),
  s("rect", { x: width / 2 + 4, y: 45, width: width / 2 - 12, height: 8, class: "fill-track" }),
  s("rect", { x: width / 2 + 4, y: 45, width: 0, height: 8, class: "fill fill-size" }),
  s("title", { class: "fill-title" }, ""));
  return group;
}

/** NiFi's colours for a back-pressure bar: warning from 61 %, error above 85 %. */
function fillClass(percent) {
  if (percent > 85) return "full";
  if (percent >= 61) return "warn";
  return "ok";
}

function updateFlow(status, bulletins) {
  const svg = document.getElementById("flow-svg");
  if (!svg) return;
  const thresholds = new Map(state.graph.connections.map((c) => [c.name, c]));
  for (const c of status.connections) {
    const label = svg.querySelector(`.connection-label[data-name="${CSS.escape(c.name)}"]`);
    if (!label) continue;
    label.querySelector(".queued").textContent = `${formatCount(c.queued_count)} (${formatBytes(c.queued_bytes)})`;
    const limits = thresholds.get(c.name);
    const track = (SIZES.LABEL.width / 2) - 12;
    const countPct = limits.back_pressure_object_threshold
      ? Math.min(100, (100 * c.queued_count) / limits.back_pressure_object_threshold) : 0;
    const sizePct = limits.back_pressure_data_size_threshold
      ? Math.min(100, (100 * c.queued_bytes) / limits.back_pressure_data_size_threshold) : 0;
    const countBar = label.querySelector(".fill-count");
    const sizeBar = label.querySelector(".fill-size");
    countBar.setAttribute("width", (track * countPct) / 100);
    sizeBar.setAttribute("width", (track * sizePct) / 100);
    countBar.setAttribute("class", `fill fill-count ${fillClass(countPct)}`);
    sizeBar.setAttribute("class", `fill fill-size ${fillClass(sizePct)}`);
    label.dataset.fillCount = Math.round(countPct);
    label.classList.toggle("back-pressure", c.back_pressure);
    label.querySelector(".fill-title").textContent = `${label.dataset.describe}\n` +
      `Back pressure: ${Math.round(countPct)}% of ${formatCount(limits.back_pressure_object_threshold)} FlowFiles, ` +
      `${Math.round(sizePct)}% of ${limits.back_pressure_data_size}` + (c.back_pressure ? " (engaged)" : "");
  }
  const bySource = new Map();
  for (const entity of bulletins) {
    const list = bySource.get(entity.sourceId) || [];
    list.push(entity.bulletin);
    bySource.set(entity.sourceId, list);
  }
  for (const p of status.processors) {
    const group = svg.querySelector(`.component[data-name="${CSS.escape(p.name)}"]`);
    if (!group) continue;
    group.dataset.runState = p.run_state;
    const glyph = group.querySelector(".run-state-glyph");
    if (glyph) {
      glyph.textContent = p.run_state === "RUNNING" ? "\u25B6" : "\u25A0";
      group.querySelector(".run-state").setAttribute("class", `run-state ${p.run_state.toLowerCase()}`);
      group.querySelector(".stat-in").textContent = `${formatCount(p.flowfiles_in)} (${formatBytes(p.bytes_in)})`;
      group.querySelector(".stat-out").textContent = `${formatCount(p.flowfiles_out)} (${formatBytes(p.bytes_out)})`;
      group.querySelector(".stat-tasks").textContent = `${formatCount(p.runs)} runs, ${formatCount(p.commits)} commits`;
      const flagged = bySource.get(p.name) || [];
      const flag = group.querySelector(".bulletin-flag");
      flag.setAttribute("visibility", flagged.length ? "visible" : "hidden");
      flag.querySelector(".bulletin-title").textContent = flagged.slice(-3).map((b) => `${b.level}: ${b.message}`).join("\n");
    }
  }
}

async function selectComponent(component) {
  if (component.kind === "INPUT_PORT") {
    state.selected = null;
    const panel = document.getElementById("panel");
    panel.hidden = false;
    put(panel, panelHeader(component.name, "Input Port"),
      h("p", {}, "FlowFiles arrive here through the REST API:"),
      h("pre", { class: "code" }, `POST /api/v1/ports/${component.name}/flowfiles`));
    return;
  }
  state.selected = component.name;
  state.panelError = null;
  document.querySelectorAll(".component.selected").forEach((el) => el.classList.remove("selected"));
  const el = document.querySelector(`.component[data-name="${CSS.escape(component.name)}"]`);
  if (el) el.classList.add("selected");
  const [status, bulletins] = await Promise.all([refreshStatus(), refreshBulletinBadge()]);
  await renderPanel(status, bulletins, true);
}

function panelHeader(name, type) {
  return h("div", { class: "panel-header" },
    h("div", {}, h("h2", { id: "panel-title" }, name), h("div", { class: "muted" }, type)),
    h("button", { class: "close", title: "Close", onclick: closePanel }, "\u00D7"));
}

function closePanel() {
  state.selected = null;
  document.getElementById("panel").hidden = true;
  document.querySelectorAll(".component.selected").forEach((el) => el.classList.remove("selected"));
}

const panelCache = { name: null, detail: null };

async function renderPanel(status, bulletins, fresh = false) {
  const name = state.selected;
  const panel = document.getElementById("panel");
  if (!name || !panel) return;
  if (fresh || panelCache.name !== name) {
    panelCache.detail = await api(`/processors/${encodeURIComponent(name)}`);
    panelCache.name = name;
  }
  const detail = panelCache.detail;
  const live = status.processors.find((p) => p.name === name);
  if (!live) return;
  const running = live.run_state === "RUNNING";
  const toggle = async (target) => {
    try {
      await api(`/processors/${encodeURIComponent(name)}/run-status`, { method: "POST", json: { state: target } });
      const [fresh2, board] = await Promise.all([refreshStatus(), refreshBulletinBadge()]);
      updateFlow(fresh2, board);
      state.panelError = null;
      await renderPanel(fresh2, board);
    } catch (error) {
      state.panelError = { name, message: error.message };
      showError(error);
      renderPanel(state.status, bulletins);
    }
  };
  const failed = state.panelError && state.panelError.name === name ? state.panelError.message : null;
  const own = bulletins.filter((b) => b.sourceId === name).slice(-5).reverse();
  panel.hidden = false;
  put(panel,
    panelHeader(name, detail.type),
    h("div", { class: "run-controls" },
      h("span", { class: `state-pill ${running ? "running" : "stopped"}`, id: "panel-run-state" }, live.run_state),
      h("button", { id: "panel-start", class: "primary", disabled: running, onclick: () => toggle("RUNNING") }, "\u25B6 Start"),
      h("button", { id: "panel-stop", disabled: !running, onclick: () => toggle("STOPPED") }, "\u25A0 Stop")),
    failed ? h("p", { class: "error", id: "panel-error" }, failed) : null,
    h("h3", {}, "Status"),
    h("dl", { class: "stats" },
      h("dt", {}, "In"), h("dd", {}, `${formatCount(live.flowfiles_in)} (${formatBytes(live.bytes_in)})`),
      h("dt", {}, "Out"), h("dd", {}, `${formatCount(live.flowfiles_out)} (${formatBytes(live.bytes_out)})`),
      h("dt", {}, "Tasks"), h("dd", {}, `${formatCount(live.runs)} runs`),
      h("dt", {}, "Commits"), h("dd", {}, formatCount(live.commits))),
    detail.validation_errors.length
      ? h("div", { class: "invalid" }, h("h3", {}, "Invalid"), h("ul", {}, detail.validation_errors.map((e) => h("li", {}, e))))
      : null,
    h("h3", {}, "Properties"),
    table(["Property", "Value"], detail.properties.map((p) => h("tr", { class: p.value === null ? "unset" : "" },
      h("td", { title: p.description }, p.display_name, p.required ? h("span", { class: "required" }, " *") : null),
      h("td", { class: "mono" }, p.value !== null ? p.value : (p.default !== null ? p.default : "No value set")))),
    { id: "panel-properties" }),
    h("h3", {}, "Scheduling"),
    h("dl", { class: "stats" },
      h("dt", {}, "Strategy"), h("dd", {}, "Timer driven"),
      h("dt", {}, "Run Schedule"), h("dd", {}, detail.schedule.run_schedule),
      h("dt", {}, "Concurrent Tasks"), h("dd", {}, detail.schedule.concurrent_tasks),
      h("dt", {}, "Penalty Duration"), h("dd", {}, detail.schedule.penalty_duration),
      h("dt", {}, "Yield Duration"), h("dd", {}, detail.schedule.yield_duration)),
    h("h3", {}, "Relationships"),
    h("ul", { class: "relationships" }, detail.relationships.map((r) =>
      h("li", { title: r.description }, r.name, r.auto_terminated ? h("span", { class: "muted" }, " (auto-terminated)") : null))),
    h("h3", {}, "Last errors"),
    live.last_errors.length
      ? h("ul", { class: "errors", id: "panel-errors" }, live.last_errors.slice().reverse().map((e) => h("li", {}, h("span", { class: "muted" }, formatTime(e.time)), " ", e.message)))
      : h("p", { class: "muted" }, "None."),
    h("h3", {}, "Bulletins"),
    own.length
      ? h("ul", { class: "errors", id: "panel-bulletins" }, own.map((b) => h("li", {}, h("span", { class: `level ${b.bulletin.level}` }, b.bulletin.level), " ", b.bulletin.message)))
      : h("p", { class: "muted" }, "None."),
    h("p", {}, h("a", { href: `#/provenance?component=${encodeURIComponent(name)}` }, "View provenance of this processor")),
  );
}

// -- queues ------------------------------------------------------------------------------

async function pageQueues(main) {
  const graph = state.graph || (state.graph = await api("/flow/graph"));
  document.getElementById("flow-name").textContent = graph.name;
  const body = h("tbody");
  put(main, h("section", { class: "page" }, h("h1", {}, "Queues"),
    h("table", { class: "grid", id: "queues" },
      h("thead", {}, h("tr", {}, ["Connection", "From", "Relationships", "To", "Queued", "Size", "Back pressure"].map((t) => h("th", {}, t)))),
      body)));
  poll(async () => {
    const status = await refreshStatus();
    const limits = new Map(graph.connections.map((c) => [c.name, c]));
    put(body, ...status.connections.map((c) => h("tr", { class: "link", dataset: { name: c.name }, onclick: () => { location.hash = `#/queue/${encodeURIComponent(c.name)}`; } },
      h("td", {}, c.name), h("td", {}, c.source), h("td", {}, c.relationships.filter((r) => r !== "__port__").join(", ")),
      h("td", {}, c.destination || ""), h("td", { class: "num queued" }, formatCount(c.queued_count)),
      h("td", { class: "num" }, formatBytes(c.queued_bytes)),
      h("td", {}, c.back_pressure ? "engaged" : `${formatCount(limits.get(c.name).back_pressure_object_threshold)} / ${limits.get(c.name).back_pressure_data_size}`))));
  });
}

async function pageQueue(main, name) {
  const listing = h("div", { id: "listing" });
  const detail = h("div", { class: "detail", id: "flowfile-detail" });
  put(main, h("section", { class: "page" },
    h("p", {}, h("a", { href: "#/queues" }, "\u2190 Queues")),
    h("h1", {}, `Queue: ${name}`),
    h("p", { class: "muted", id: "listing-summary" }, ""),
    h("div", { class: "split" }, listing, detail)));
  await refreshStatus();
  const page = await api(`/connections/${encodeURIComponent(name)}/flowfiles?limit=100`);
  const now = Date.now();
  document.getElementById("listing-summary").textContent =
    `Displaying ${page.flowfiles.length} of ${formatCount(page.total)} queued FlowFiles` +
    (page.swapped ? ` (${formatCount(page.swapped)} more swapped out)` : "");
  put(listing, table(["Position", "UUID", "Filename", "File Size", "Queued Duration", "Lineage Duration", "Penalized"],
    page.flowfiles.map((f) => h("tr", { class: "link", dataset: { uuid: f.uuid }, onclick: () => showQueuedFlowFile(name, f, detail) },
      h("td", { class: "num" }, f.position + 1), h("td", { class: "mono" }, f.uuid), h("td", {}, f.filename || ""),
      h("td", { class: "num" }, formatBytes(f.size)),
      h("td", {}, formatDuration(Math.max(0, now - f.entry_date))),
      h("td", {}, formatDuration(Math.max(0, now - f.lineage_start_date))),
      h("td", {}, f.penalized ? "Yes" : "No"))), { id: "queue-listing" }));
  if (page.flowfiles.length) showQueuedFlowFile(name, page.flowfiles[0], detail);
}

async function showQueuedFlowFile(connection, flowfile, detail) {
  const path = `/connections/${encodeURIComponent(connection)}/flowfiles/${encodeURIComponent(flowfile.uuid)}/content`;
  const preview = h("pre", { class: "content-preview", id: "content-preview" }, "loading\u2026");
  put(detail,
    h("h2", {}, "FlowFile"),
    h("dl", { class: "stats" },
      h("dt", {}, "UUID"), h("dd", { class: "mono" }, flowfile.uuid),
      h("dt", {}, "File Size"), h("dd", {}, formatBytes(flowfile.size)),
      h("dt", {}, "Entry Date"), h("dd", {}, formatTime(flowfile.entry_date)),
      h("dt", {}, "Lineage Start"), h("dd", {}, formatTime(flowfile.lineage_start_date))),
    h("p", {},
      h("button", { onclick: () => download(`${path}?download=true`, flowfile.uuid).catch(showError) }, "Download content"), " ",
      h("a", { class: "button", href: `#/lineage/${flowfile.uuid}` }, "Show lineage")),
    h("h3", {}, "Attributes"),
    table(["Attribute", "Value"], Object.entries(flowfile.attributes).sort().map(([k, v]) =>
      h("tr", {}, h("td", {}, k), h("td", { class: "mono" }, v))), { id: "flowfile-attributes" }),
    h("h3", {}, "Content"),
    preview);
  try {
    const response = await api(`${path}?max_bytes=65536`, { raw: true });
    const text = new TextDecoder("utf-8", { fatal: false }).decode(await response.arrayBuffer());
    preview.textContent = text + (flowfile.size > 65536 ? "\n\u2026 (first 64 KB shown)" : "");
    if (!text) preview.textContent = "(no content)";
  } catch (error) {
    preview.textContent = `content not available: ${error.message}`;
  }
}

// -- provenance --------------------------------------------------------------------------

function hashParams() {
  const query = location.hash.split("?")[1] || "";
  return new URLSearchParams(query);
}

async function pageProvenance(main) {
  const params = hashParams();
  const graph = state.graph || (state.graph = await api("/flow/graph"));
  const components = graph.components.map((c) => c.name);
  const field = (label, input) => h("label", {}, h("span", {}, label), input);
  const form = h("form", { class: "search", id: "provenance-search" },
    field("Event Type", h("select", { name: "event_type" }, h("option", { value: "" }, "Any"),
      EVENT_TYPES.map((t) => h("option", { value: t, selected: params.get("event_type") === t }, t)))),
    field("Component", h("select", { name: "component" }, h("option", { value: "" }, "Any"),
      components.map((c) => h("option", { value: c, selected: params.get("component") === c }, c)))),
    field("FlowFile UUID", h("input", { name: "flowfile_uuid", value: params.get("flowfile_uuid") || "", size: 36 })),
    field("Attribute", h("input", { name: "attribute", placeholder: "name=value", value: params.get("attribute") || "" })),
    field("Start", h("input", { name: "start", type: "datetime-local", step: 1, value: params.get("start") || "" })),
    field("End", h("input", { name: "end", type: "datetime-local", step: 1, value: params.get("end") || "" })),
    h("button", { type: "submit", class: "primary" }, "Search"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new URLSearchParams();
    for (const [key, value] of new FormData(form)) if (value) data.set(key, value);
    const target = `#/provenance?${data}`;
    if (location.hash === target) route(); else location.hash = target;
  });
  const results = h("div", { id: "provenance-results" }, h("p", { class: "muted" }, "searching\u2026"));
  put(main, h("section", { class: "page" }, h("h1", {}, "Provenance"),
    h("p", { class: "muted" }, "Times are the node's, in UTC."), form, results));
  const query = new URLSearchParams({ limit: "100", wait_for_index: "true" });
  for (const key of ["event_type", "component", "flowfile_uuid"]) if (params.get(key)) query.set(key, params.get(key));
  for (const key of ["start", "end"]) if (params.get(key)) query.set(key, `${params.get(key)}Z`);
  const attribute = params.get("attribute");
  if (attribute && attribute.includes("=")) {
    const at = attribute.indexOf("=");
    query.set(`attribute.${attribute.slice(0, at).trim()}`, attribute.slice(at + 1));
  }
  await refreshStatus();
  const found = await api(`/provenance/events?${query}`);
  put(results,
    h("p", { class: "muted", id: "provenance-count" }, `${found.events.length} event(s)${found.next_cursor ? " (newest first; refine the search for older ones)" : ""}`),
    table(["Date/Time", "Type", "FlowFile UUID", "Size", "Component Name", "Component Type", "Details"],
      found.events.map((e) => h("tr", { class: "link", dataset: { eventId: e.event_id, eventType: e.event_type }, onclick: () => { location.hash = `#/event/${e.event_id}`; } },
        h("td", {}, formatTime(e.event_time)), h("td", { class: "event-type" }, e.event_type),
        h("td", { class: "mono" }, e.flowfile_uuid), h("td", { class: "num" }, formatBytes(e.size)),
        h("td", {}, e.component_id), h("td", {}, e.component_type), h("td", {}, e.details || ""))),
      { id: "provenance-table" }));
}

async function pageEvent(main, eventId) {
  const event = await api(`/provenance/events/${encodeURIComponent(eventId)}`);
  const replayResult = h("span", { id: "replay-result" });
  const replay = async () => {
    try {
      const made = await api(`/provenance/events/${event.event_id}/replay`, { method: "POST" });
      replayResult.textContent = `Replayed: new FlowFile ${made.uuid}`;
      replayResult.className = "ok";
    } catch (error) {
      replayResult.textContent = error.message;
      replayResult.className = "error";
    }
  };
  const names = new Set([...Object.keys(event.previous_attributes), ...Object.keys(event.attributes)]);
  const rows = [...names].sort().map((name) => {
    const before = event.previous_attributes[name];
    const after = event.attributes[name];
    const changed = before !== after;
    return h("tr", { class: changed ? "changed" : "" }, h("td", {}, name),
      h("td", { class: "mono" }, before === undefined ? h("span", { class: "muted" }, "No value set") : before),
      h("td", { class: "mono" }, after === undefined ? h("span", { class: "muted" }, "No value set") : after));
  });
  const contentRow = (which, ref, available) => h("tr", {},
    h("td", {}, which === "input" ? "Input Claim" : "Output Claim"),
    h("td", {}, ref ? `${formatBytes(ref.size)} in ${ref.container}/${ref.section}/${ref.identifier} @ ${ref.offset}` : "No value set"),
    h("td", {}, ref && available
      ? h("button", { id: `download-${which}`, onclick: () => download(`/provenance/events/${event.event_id}/content/${which}`, `event-${event.event_id}-${which}`).catch(showError) }, "Download")
      : h("span", { class: "muted" }, ref ? "aged off" : "")));
  const uuidLinks = (uuids) => uuids.length ? uuids.map((u) => h("a", { class: "mono block", href: `#/lineage/${u}` }, u)) : "\u2014";
  put(main, h("section", { class: "page event-page" },
    h("p", {}, h("a", { href: "#/provenance" }, "\u2190 Provenance")),
    h("h1", {}, `Provenance Event ${event.event_id}: `, h("span", { id: "event-type" }, event.event_type)),
    h("div", { class: "actions" },
      h("button", { class: "primary", id: "replay", onclick: replay }, "\u21BB Replay"), " ",
      h("a", { class: "button", id: "show-lineage", href: `#/lineage/${event.flowfile_uuid}` }, "Show lineage"), " ",
      replayResult),
    h("div", { class: "columns" },
      h("div", {},
        h("h2", {}, "Details"),
        h("dl", { class: "stats", id: "event-details" },
          h("dt", {}, "Time"), h("dd", {}, formatTime(event.event_time)),
          h("dt", {}, "Event Duration"), h("dd", {}, `${event.event_duration} millis`),
          h("dt", {}, "Lineage Duration"), h("dd", {}, formatDuration(Math.max(0, event.event_time - event.lineage_start_date))),
          h("dt", {}, "Type"), h("dd", {}, event.event_type),
          h("dt", {}, "FlowFile UUID"), h("dd", { class: "mono" }, event.flowfile_uuid),
          h("dt", {}, "File Size"), h("dd", {}, formatBytes(event.size)),
          h("dt", {}, "Component Id"), h("dd", {}, event.component_id),
          h("dt", {}, "Component Type"), h("dd", {}, event.component_type),
          h("dt", {}, "Relationship"), h("dd", {}, event.relationship || "\u2014"),
          h("dt", {}, "Details"), h("dd", { id: "event-detail-text" }, event.details || "\u2014"),
          h("dt", {}, "Transit URI"), h("dd", {}, event.transit_uri || "\u2014"),
          h("dt", {}, "Parent FlowFiles"), h("dd", {}, uuidLinks(event.parent_uuids)),
          h("dt", {}, "Child FlowFiles"), h("dd", {}, uuidLinks(event.child_uuids))),
        h("h2", {}, "Content"),
        table(["", "Claim", ""], [
          contentRow("input", event.input_content, event.input_content_available),
          contentRow("output", event.output_content, event.output_content_available)], { id: "event-content" })),
      h("div", {},
        h("h2", {}, "Attributes"),
        h("label", { class: "check" }, h("input", { type: "checkbox", id: "only-modified", onchange: (e) => {
          document.querySelectorAll("#event-attributes tbody tr").forEach((tr) => { tr.hidden = e.target.checked && !tr.classList.contains("changed"); });
        } }), " Show modified attributes only"),
        table(["Attribute", "Previous Value", "Current Value"], rows, { id: "event-attributes" })))));
  await refreshStatus();
}

// -- lineage -----------------------------------------------------------------------------

async function pageLineage(main, uuid) {
  if (!uuid) {
    const input = h("input", { name: "uuid", size: 40, placeholder: "FlowFile UUID", id: "lineage-uuid" });
    const form = h("form", { class: "search", onsubmit: (e) => { e.preventDefault(); location.hash = `#/lineage/${input.value.trim()}`; } },
      h("label", {}, h("span", {}, "FlowFile UUID"), input), h("button", { class: "primary", type: "submit" }, "Show lineage"));
    put(main, h("section", { class: "page" }, h("h1", {}, "Lineage"),
      h("p", {}, "The lineage of a FlowFile: its ancestors and descendants. Open it from a provenance event, a queued FlowFile, or here."), form));
    await refreshStatus();
    return;
  }
  const detail = h("aside", { class: "panel lineage-detail", id: "lineage-detail" },
    h("p", { class: "muted" }, "Click an event for its details; expand a merge's parents or a fork's children from there."));
  const graphBox = h("div", { class: "lineage-graph", id: "lineage-graph" });
  put(main, h("div", { class: "lineage-page" },
    h("div", { class: "lineage-head" }, h("h1", {}, "Lineage of ", h("span", { class: "mono" }, uuid)),
      h("span", { class: "legend" },
        h("span", { class: "legend-flowfile" }, "FlowFile"), h("span", { class: "legend-event" }, "Event"),
        h("span", { class: "legend-join" }, "JOIN (merge)"))),
    h("div", { class: "lineage-body" }, graphBox, detail)));
  state.lineage = { nodes: new Map(), links: new Map(), root: uuid, expanded: new Set([uuid]) };
  await refreshStatus();
  await mergeLineage(uuid);
  drawLineage(graphBox, detail);
}

async function mergeLineage(uuid) {
  const graph = await api(`/provenance/lineage/${encodeURIComponent(uuid)}?wait_for_index=true`);
  for (const node of graph.nodes) state.lineage.nodes.set(node.id, node);
  for (const link of graph.links) state.lineage.links.set(`${link.source_id}->${link.target_id}`, link);
  state.lineage.expanded.add(uuid);
}

function lineageLabel(node) {
  if (node.type === "FLOWFILE") return shortUuid(node.flowfile_uuid);
  if (node.event_type === "JOIN" && node.details) return `JOIN\n${node.details}`;
  return node.event_type;
}

function labelLines(ele) {
  return String(ele.data("label")).split("\n").flatMap((line) => line.match(/.{1,30}(\s|$)|\S+/g) || [""]);
}

function labelWidth(ele) {
  return Math.max(...labelLines(ele).map((line) => line.length)) * 7 + 20;
}

function labelHeight(ele) {
  return labelLines(ele).length * 14 + 16;
}

function drawLineage(box, detail) {
  const elements = [];
  for (const node of state.lineage.nodes.values()) {
    elements.push({
      group: "nodes",
      data: {
        id: node.id, label: lineageLabel(node), kind: node.type, eventType: node.event_type || "",
        eventId: node.event_id, uuid: node.flowfile_uuid, details: node.details || "",
        root: node.flowfile_uuid === state.lineage.root && node.type === "FLOWFILE" ? "yes" : "no",
      },
    });
  }
  for (const [id, link] of state.lineage.links) {
    if (!state.lineage.nodes.has(link.source_id) || !state.lineage.nodes.has(link.target_id)) continue;
    elements.push({ group: "edges", data: { id, source: link.source_id, target: link.target_id } });
  }
  if (state.cy) state.cy.destroy();
  const cy = cytoscape({
    container: box,
    elements,
    style: [
      { selector: "node", style: { label: "data(label)", "font-family": "Helvetica, Arial, sans-serif", "font-size": 11, "text-wrap": "wrap", "text-max-width": 220, color: "#262626" } },
      { selector: "node[kind = 'FLOWFILE']", style: { shape: "ellipse", width: 28, height: 28, "background-color": "#728e9b", "text-valign": "bottom", "text-margin-y": 4, "font-family": "monospace", "font-size": 10 } },
      { selector: "node[root = 'yes']", style: { "background-color": "#ad3d3d", "border-width": 3, "border-color": "#f0c6c6" } },
      { selector: "node[kind = 'EVENT']", style: { shape: "round-rectangle", width: labelWidth, height: labelHeight, "background-color": "#ffffff", "border-width": 1.5, "border-color": "#728e9b", "text-valign": "center", "text-halign": "center" } },
      { selector: "node[eventType = 'JOIN']", style: { "background-color": "#fff4dd", "border-color": "#d8a030", "border-width": 2, "font-weight": "bold" } },
      { selector: "node[eventType = 'DROP'], node[eventType = 'EXPIRE']", style: { "border-color": "#999", color: "#777" } },
      { selector: "node:selected", style: { "border-color": "#1e74c4", "border-width": 3 } },
      { selector: "edge", style: { width: 1.5, "line-color": "#9aaab3", "target-arrow-color": "#9aaab3", "target-arrow-shape": "triangle", "curve-style": "bezier" } },
    ],
    layout: { name: "dagre", rankDir: "TB", nodeSep: 30, rankSep: 40, padding: 20 },
  });
  state.cy = cy;
  window.flowcoreLineage = cy; // for tests and the curious: the graph's model
  box.dataset.nodes = cy.nodes().length;
  cy.on("tap", "node", (evt) => showLineageNode(evt.target.data(), detail));
}

async function showLineageNode(data, detail) {
  if (data.kind === "FLOWFILE") {
    const expanded = state.lineage.expanded.has(data.uuid);
    put(detail, h("h2", {}, "FlowFile"), h("p", { class: "mono" }, data.uuid),
      h("p", {}, h("button", { id: "expand-flowfile", disabled: expanded, onclick: () => expand([data.uuid], detail) }, expanded ? "Expanded" : "Expand its lineage")),
      h("p", {}, h("a", { href: `#/provenance?flowfile_uuid=${data.uuid}` }, "Its provenance events")));
    return;
  }
  const event = await api(`/provenance/events/${data.eventId}`);
  const pending = (uuids) => uuids.filter((u) => !state.lineage.expanded.has(u));
  put(detail,
    h("h2", { id: "lineage-event-title" }, `${event.event_type} event ${event.event_id}`),
    event.details ? h("p", { class: "merge-reason", id: "lineage-event-details" }, event.details) : null,
    h("dl", { class: "stats" },
      h("dt", {}, "Time"), h("dd", {}, formatTime(event.event_time)),
      h("dt", {}, "Component"), h("dd", {}, `${event.component_id} (${event.component_type})`),
      h("dt", {}, "FlowFile"), h("dd", { class: "mono" }, shortUuid(event.flowfile_uuid)),
      h("dt", {}, "Parents"), h("dd", {}, String(event.parent_uuids.length)),
      h("dt", {}, "Children"), h("dd", {}, String(event.child_uuids.length))),
    h("p", { class: "actions" },
      h("button", { id: "expand-parents", disabled: !pending(event.parent_uuids).length, onclick: () => expand(pending(event.parent_uuids), detail) }, "Expand parents"), " ",
      h("button", { id: "expand-children", disabled: !pending(event.child_uuids).length, onclick: () => expand(pending(event.child_uuids), detail) }, "Expand children")),
    h("p", {}, h("a", { href: `#/event/${event.event_id}` }, "View event details")));
}

async function expand(uuids, detail) {
  try {
    for (const uuid of uuids) await mergeLineage(uuid);
    drawLineage(document.getElementById("lineage-graph"), detail);
    detail.prepend(h("p", { class: "ok", id: "expanded-note" }, `Expanded ${uuids.length} FlowFile(s).`));
  } catch (error) {
    showError(error);
  }
}

// -- bulletins ---------------------------------------------------------------------------

async function pageBulletins(main) {
  const body = h("tbody");
  put(main, h("section", { class: "page" }, h("h1", {}, "Bulletin Board"),
    h("p", { class: "muted" }, "Processor errors, FlowFiles routed to failure with a reason, and repository warnings; newest first."),
    h("table", { class: "grid", id: "bulletins" },
      h("thead", {}, h("tr", {}, ["Time", "Level", "Source", "Type", "Category", "Message"].map((t) => h("th", {}, t)))), body),
    h("p", { class: "muted", id: "bulletins-empty" }, "")));
  poll(async () => {
    const [, bulletins] = await Promise.all([refreshStatus(), refreshBulletinBadge()]);
    document.getElementById("bulletins-empty").textContent = bulletins.length ? "" : "No bulletins.";
    put(body, ...bulletins.slice().reverse().map((entity) => {
      const b = entity.bulletin;
      return h("tr", { class: `bulletin level-${b.level.toLowerCase()}` },
        h("td", {}, formatTime(b.timestampMillis)), h("td", {}, h("span", { class: `level ${b.level}` }, b.level)),
        h("td", {}, b.sourceName), h("td", {}, b.sourceType), h("td", {}, b.category), h("td", { class: "message" }, b.message));
    }));
  });
}

// -- routing -----------------------------------------------------------------------------

async function route() {
  clearTimers();
  const main = document.getElementById("main");
  const [path] = location.hash.replace(/^#\/?/, "").split("?");
  const [page, ...rest] = path.split("/");
  const arg = rest.length ? decodeURIComponent(rest.join("/")) : "";
  const current = page || "flow";
  document.querySelectorAll(".nav a").forEach((a) => {
    const target = a.dataset.page;
    const active = target === current || (target === "queues" && current === "queue") || (target === "provenance" && current === "event");
    a.classList.toggle("active", active);
  });
  document.body.dataset.page = current;
  if (state.cy && current !== "lineage") {
    state.cy.destroy();
    state.cy = null;
  }
  const pages = {
    flow: () => pageFlow(main),
    queues: () => pageQueues(main),
    queue: () => pageQueue(main, arg),
    provenance: () => pageProvenance(main),
    event: () => pageEvent(main, arg),
    lineage: () => pageLineage(main, arg),
    bulletins: () => pageBulletins(main),
  };
  const render = pages[current] || pages.flow;
  try {
    await render();
    refreshBulletinBadge().catch(() => {});
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      put(main, h("section", { class: "page" }, h("p", { class: "muted" }, "Sign in to see this node.")));
      return;
    }
    put(main, h("section", { class: "page" }, h("p", { class: "error", id: "page-error" }, error.message)));
  }
}

document.getElementById("login-form").addEventListener("submit", () => {
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("login-token").value);
  route();
});
window.addEventListener("hashchange", route);
if (typeof cytoscape !== "undefined" && typeof cytoscapeDagre !== "undefined") cytoscape.use(cytoscapeDagre);
route();
