/* vqametrics demo page. Plain JavaScript, no build step, nothing loaded from the network.
   This file only displays: every score, count and normalized string comes from the JSON API,
   which calls the vqametrics library. No scoring logic lives here. */
"use strict";
(function () {
  const I18N = window.VQM_I18N;
  const TABS = ["step1", "step2", "step3", "myths", "quiz"];
  const state = {
    lang: "en",
    tab: "step1",
    profile: "official",
    profiles: [],
    switchProfiles: [],
    presets: [],
    presetId: "",
    question: "",
    prediction: "",
    answers: [],
    explain: null,
    yard: null,
    myths: null,
    quiz: null,
    quizChecked: false,
    version: "",
    seq: 0,
  };

  // ---------------------------------------------------------------- helpers
  function t(key, vars) {
    const table = I18N[state.lang] || I18N.en;
    let s = key in table ? table[key] : key in I18N.en ? I18N.en[key] : key;
    if (vars) {
      for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
    }
    return s;
  }

  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === "text") node.textContent = v;
        else if (k === "cls") node.className = v;
        else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
        else node.setAttribute(k, v === true ? "" : v);
      }
    }
    for (const c of children || []) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  /** A percentage the API rounded (round(100*x, 2)), shown with two decimals. */
  function fmtPct(p) {
    return typeof p === "number" ? p.toFixed(2) : "—";
  }

  /** A value in [0, 1] the API returned, shown with three decimals. */
  function fmt3(v) {
    return typeof v === "number" ? String(Number(v.toFixed(3))) : "—";
  }

  function showText(s) {
    return s === "" ? "∅" : s;
  }

  async function api(path, body) {
    const opts = body === undefined ? {} : {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    };
    const res = await fetch(path, opts);
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || res.statusText);
    return data;
  }

  function showError(err) {
    const box = document.getElementById("global-error");
    box.textContent = t("error", { msg: err && err.message ? err.message : String(err) });
    box.hidden = false;
  }

  function stepName(name) {
    const key = "step." + name;
    const s = t(key);
    return s === key ? name : s;
  }

  function bar(fraction, cls, label) {
    const outer = el("span", { cls: "bar " + (cls || ""), role: "img", "aria-label": label });
    const inner = el("span", { cls: "bar-fill" });
    inner.style.width = Math.max(0, Math.min(100, fraction * 100)) + "%";
    outer.append(inner);
    return outer;
  }

  // ---------------------------------------------------------------- language
  function applyStaticText() {
    document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
    document.title = "vqametrics — " + t("title");
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const node of document.querySelectorAll("[data-i18n-aria]")) {
      node.setAttribute("aria-label", t(node.dataset.i18nAria));
    }
    for (const b of document.querySelectorAll(".lang button")) {
      b.setAttribute("aria-pressed", String(b.dataset.lang === state.lang));
    }
    document.getElementById("steps-wrap").setAttribute("aria-label", t("s2.table_label"));
    document.getElementById("footer").textContent = t("footer", { version: state.version });
  }

  function setLang(lang) {
    if (!(lang in I18N)) return;
    state.lang = lang;
    try { localStorage.setItem("vqm-lang", lang); } catch (e) { /* private mode */ }
    applyStaticText();
    renderPresetSelect();
    renderAll();
  }

  // ---------------------------------------------------------------- tabs
  function selectTab(name, focus) {
    if (!TABS.includes(name)) name = "step1";
    state.tab = name;
    for (const id of TABS) {
      const tab = document.getElementById("tab-" + id);
      const panel = document.getElementById("panel-" + id);
      const on = id === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      panel.hidden = !on;
    }
    if (focus) document.getElementById("tab-" + name).focus();
    if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
    if (name === "step3" || name === "myths" || name === "quiz") loadLazy(name);
  }

  function initTabs() {
    const list = document.querySelector("[role=tablist]");
    list.addEventListener("click", (e) => {
      const b = e.target.closest("[role=tab]");
      if (b) selectTab(b.dataset.tab, false);
    });
    list.addEventListener("keydown", (e) => {
      const i = TABS.indexOf(state.tab);
      let j = null;
      if (e.key === "ArrowRight") j = (i + 1) % TABS.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + TABS.length) % TABS.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = TABS.length - 1;
      if (j !== null) {
        e.preventDefault();
        selectTab(TABS[j], true);
      }
    });
    window.addEventListener("hashchange", () => selectTab(location.hash.slice(1), false));
  }

  // ---------------------------------------------------------------- step 1 inputs
  function renderPresetSelect() {
    const sel = document.getElementById("preset");
    clear(sel);
    const groups = {};
    for (const p of state.presets) {
      if (!groups[p.group]) {
        groups[p.group] = el("optgroup", { label: t("group." + p.group) });
        sel.append(groups[p.group]);
      }
      const label = p.question + " — “" + p.prediction + "”";
      groups[p.group].append(el("option", { value: p.id, text: label }));
    }
    if (state.presetId) sel.value = state.presetId;
    renderPresetNote();
  }

  function renderPresetNote() {
    const p = state.presets.find((x) => x.id === state.presetId);
    const note = document.getElementById("preset-note");
    // the preset notes describe the official scores; other profiles get a pointer instead
    const official = state.profile === "official";
    note.textContent = p && p.note ? (official ? t(p.note) : t("preset.note_official_only")) : "";
    document.getElementById("question-text").textContent = state.question;
  }

  function loadPreset(id) {
    const p = state.presets.find((x) => x.id === id);
    if (!p) return;
    state.presetId = id;
    state.question = p.question;
    state.prediction = p.prediction;
    state.answers = p.answers.slice();
    document.getElementById("prediction").value = p.prediction;
    document.getElementById("prediction2").value = p.prediction;
    buildSlipInputs();
    renderPresetNote();
    requestExplain();
  }

  function buildSlipInputs() {
    const ol = clear(document.getElementById("slips"));
    state.answers.forEach((a, i) => {
      const id = "slip-" + (i + 1);
      const input = el("input", {
        id, type: "text", value: a, autocomplete: "off", spellcheck: "false", maxlength: "200",
      });
      input.addEventListener("input", () => {
        state.answers[i] = input.value;
        requestExplain();
      });
      const label = el("label", { for: id, cls: "slip-label", "data-slip-label": String(i + 1) });
      label.textContent = t("s1.slip", { i: i + 1 });
      const badge = el("span", { cls: "badge", id: "badge-" + (i + 1), "aria-live": "off" });
      ol.append(el("li", { cls: "slip" }, [label, input, badge]));
    });
  }

  let timer = null;
  function requestExplain() {
    clearTimeout(timer);
    timer = setTimeout(runExplain, 120);
  }

  async function runExplain() {
    const seq = ++state.seq;
    document.body.dataset.pending = "1";
    try {
      const data = await api("/api/explain", {
        prediction: state.prediction,
        answers: state.answers,
        profile: state.profile,
      });
      if (seq !== state.seq) return;
      state.explain = data;
      document.getElementById("global-error").hidden = true;
      renderStep1();
      renderStep2();
    } catch (err) {
      if (seq === state.seq) showError(err);
    } finally {
      if (seq === state.seq) delete document.body.dataset.pending;
    }
  }

  // ---------------------------------------------------------------- step 1 output
  function renderStep1() {
    const e = state.explain;
    if (!e) return;
    for (const label of document.querySelectorAll("[data-slip-label]")) {
      label.textContent = t("s1.slip", { i: label.dataset.slipLabel });
    }
    e.matches.forEach((hit, i) => {
      const badge = document.getElementById("badge-" + (i + 1));
      if (!badge) return;
      badge.textContent = hit ? "✓ " + t("s1.match") : "· " + t("s1.nomatch");
      badge.className = "badge " + (hit ? "hit" : "miss");
      badge.closest("li").classList.toggle("is-hit", hit);
    });

    const grid = clear(document.getElementById("s1-result"));
    grid.append(
      el("div", { cls: "stat" }, [
        el("span", { cls: "stat-label", text: t("s1.m") }),
        el("span", { cls: "stat-value", id: "m-value", text: String(e.m) }),
        el("span", { cls: "stat-formula", text: t("s1.m_formula") + " = " + e.m + " / " + e.n }),
      ]),
      el("div", { cls: "stat" }, [
        el("span", { cls: "stat-label", text: t("s1.textbook") }),
        el("span", { cls: "stat-value", id: "textbook-score", text: fmtPct(e.textbook_percent) }),
        el("span", { cls: "stat-formula", text: t("s1.textbook_formula") }),
      ]),
      el("div", { cls: "stat main" }, [
        el("span", { cls: "stat-label", text: t("s1.official") }),
        el("span", { cls: "stat-value", id: "official-score", text: fmtPct(e.percent) }),
        el("span", { cls: "stat-formula", text: t("s1.official_formula") }),
        el("span", { cls: "stat-exact", id: "official-exact", text: t("s1.exact", { value: e.score_repr }) }),
      ]),
    );
    document.getElementById("s1-profile").textContent = t("s1.profile_note", { profile: e.profile });
    renderLoo(e);
    renderLadder(e);
  }

  function renderLoo(e) {
    const box = clear(document.getElementById("loo"));
    if (!e.leave_one_out.length) {
      box.append(el("p", { text: t("s1.loo_none", { profile: e.profile }) }));
      return;
    }
    const legend = el("p", { cls: "legend", "aria-hidden": "true" }, [
      el("span", { cls: "cell hit" }), " " + t("s1.legend_match") + "  ",
      el("span", { cls: "cell miss" }), " " + t("s1.legend_miss") + "  ",
      el("span", { cls: "cell out" }), " " + t("s1.legend_out"),
    ]);
    box.append(legend);
    const list = el("ol", { cls: "loo-list" });
    e.leave_one_out.forEach((row, i) => {
      const cells = el("span", { cls: "cells", "aria-hidden": "true" });
      e.matches.forEach((hit, j) => {
        const c = el("span", { cls: "cell " + (j === i ? "out" : hit ? "hit" : "miss") });
        c.title = j === i ? t("s1.left_out") : t("s1.slip", { i: j + 1 });
        cells.append(c);
      });
      const text = t("s1.loo_value", { k: row.others_matching, n: e.n - 1, v: fmt3(row.value) });
      list.append(el("li", { cls: "loo-row" }, [
        el("span", { cls: "loo-label", text: t("s1.loo_row", { i: i + 1 }) }),
        cells,
        bar(row.value, "small", text),
        el("span", { cls: "loo-text", text }),
      ]));
    });
    box.append(list);
    box.append(el("p", { cls: "loo-mean", id: "loo-mean", text: t("s1.loo_mean", {
      n: e.leave_one_out.length, score: e.score_repr, pct: fmtPct(e.percent),
    }) }));
  }

  function renderLadder(e) {
    document.getElementById("ladder-title").textContent = t("s1.ladder_title", { n: e.n });
    const box = clear(document.getElementById("ladder"));
    const chart = el("div", { cls: "ladder", role: "list" });
    for (const step of e.ladder) {
      const current = step.m === e.m;
      const col = el("div", { cls: "rung" + (current ? " current" : ""), role: "listitem" });
      const label = t("s1.ladder_m", { m: step.m }) + ": " + t("s1.ladder_official") + " " +
        fmtPct(step.percent) + ", " + t("s1.ladder_textbook") + " " + fmtPct(step.textbook_percent);
      col.setAttribute("aria-label", label);
      const track = el("div", { cls: "rung-track", "aria-hidden": "true" });
      const fill = el("div", { cls: "rung-fill" });
      fill.style.height = step.percent + "%";
      const mark = el("div", { cls: "rung-textbook" });
      mark.style.bottom = step.textbook_percent + "%";
      track.append(fill, mark);
      col.append(
        el("span", { cls: "rung-value", "aria-hidden": "true", text: String(Math.round(step.percent * 100) / 100) }),
        track,
        el("span", { cls: "rung-m", "aria-hidden": "true", text: String(step.m) }),
      );
      chart.append(col);
    }
    box.append(chart);
    box.append(el("p", { cls: "legend" }, [
      el("span", { cls: "swatch fill", "aria-hidden": "true" }), " " + t("s1.ladder_official") + " (" + e.profile + ")   ",
      el("span", { cls: "swatch tick", "aria-hidden": "true" }), " " + t("s1.ladder_textbook"),
    ]));
  }

  // ---------------------------------------------------------------- step 2
  function renderProfileSwitch() {
    const row = clear(document.getElementById("profile-switch"));
    for (const name of state.switchProfiles) {
      const id = "profile-" + name;
      const input = el("input", { type: "radio", name: "profile", id, value: name });
      input.checked = name === state.profile;
      input.addEventListener("change", () => {
        if (!input.checked) return;
        state.profile = name;
        renderProfileInfo();
        renderPresetNote();
        requestExplain();
      });
      row.append(el("span", { cls: "radio" }, [input, el("label", { for: id, text: name })]));
    }
    renderProfileInfo();
  }

  function renderProfileInfo() {
    const p = state.profiles.find((x) => x.name === state.profile);
    const box = clear(document.getElementById("profile-info"));
    if (!p) return;
    box.append(
      el("p", { text: p.description }),
      el("p", { cls: "muted", text: t("s2.reproduces", { what: p.reproduces }) }),
      el("p", { text: t(p.unanimity_rule ? "s2.unanimity_yes" : "s2.unanimity_no") }),
      el("p", { text: t("s2.loo", { mode: t("s2.loo." + p.leave_one_out) }) }),
    );
  }

  function diffNode(step) {
    if (step.skipped) return el("span", { cls: "skipped", text: t("s2.skipped") });
    const out = el("span", { cls: "diff" });
    if (!step.diff.length) out.append(el("span", { cls: "empty", text: "∅" }));
    for (const [op, text] of step.diff) {
      if (op === "eq") out.append(el("span", { text }));
      else if (op === "ins") out.append(el("ins", { text }));
      else out.append(el("del", { text }));
    }
    return out;
  }

  function renderStep2() {
    const e = state.explain;
    if (!e) return;
    const pred2 = document.getElementById("prediction2");
    if (document.activeElement !== pred2) pred2.value = state.prediction;
    const ban = document.getElementById("unanimous");
    ban.hidden = !e.unanimous;
    ban.textContent = e.unanimous ? t("s2.unanimous") : "";

    const table = clear(document.getElementById("steps-table"));
    const steps = e.prediction_steps.map((s) => s.step);
    const ansSteps = e.answer_steps.length ? e.answer_steps[0].map((s) => s.step) : [];
    const names = steps.slice();
    for (const s of ansSteps) if (!names.includes(s)) names.push(s);
    table.append(el("caption", { cls: "sr-only", text: t("s2.table_label") }));
    const head = el("tr", null, [
      el("th", { scope: "col", text: "" }),
      el("th", { scope: "col", text: t("s2.col_raw") }),
      ...names.map((n) => el("th", { scope: "col", text: stepName(n) })),
      el("th", { scope: "col", text: t("s2.col_result") }),
      el("th", { scope: "col", text: t("s2.col_match") }),
    ]);
    table.append(el("thead", null, [head]));
    const body = el("tbody");
    const row = (label, raw, trace, result, match, cls) => {
      const byName = {};
      for (const s of trace) byName[s.step] = s;
      const tr = el("tr", { cls }, [
        el("th", { scope: "row", text: label }),
        el("td", { cls: "raw" }, [el("code", { text: showText(raw) })]),
      ]);
      for (const n of names) {
        const s = byName[n];
        const td = el("td", { cls: s ? (s.skipped ? "is-skipped" : s.changed ? "is-changed" : "is-same") : "na" });
        if (!s) td.append("—");
        else if (!s.skipped && !s.changed) td.append(el("span", { cls: "same", text: "=" }), el("span", { cls: "sr-only", text: t("s2.unchanged") }));
        else td.append(diffNode(s));
        tr.append(td);
      }
      tr.append(el("td", { cls: "result" }, [el("code", { text: showText(result) })]));
      tr.append(el("td", { cls: "match" }, [match === null ? "" :
        el("span", { cls: "badge " + (match ? "hit" : "miss"), title: match ? t("s1.match") : t("s1.nomatch") }, [
          match ? "✓" : "·", el("span", { cls: "sr-only", text: match ? t("s1.match") : t("s1.nomatch") }),
        ])]));
      body.append(tr);
    };
    row(t("s2.row_prediction"), e.prediction, e.prediction_steps, e.normalized_prediction, null, "pred-row");
    e.answers.forEach((a, i) => {
      row(t("s1.slip", { i: i + 1 }), a, e.answer_steps[i], e.normalized_answers[i], e.matches[i], e.matches[i] ? "hit-row" : "");
    });
    table.append(body);
    const line = document.getElementById("s2-score");
    line.textContent = t("s2.score_line", { m: e.m, pct: fmtPct(e.percent), profile: e.profile });

    const box = clear(document.getElementById("by-profile"));
    const tbl = el("table", { cls: "plain", id: "by-profile-table" });
    tbl.append(el("thead", null, [el("tr", null, [
      el("th", { scope: "col", text: t("s2.col_profile") }),
      el("th", { scope: "col", text: t("s2.col_score") }),
      el("th", { scope: "col", text: "" }),
    ])]));
    const tb = el("tbody");
    for (const r of e.by_profile) {
      const current = r.profile === e.profile;
      tb.append(el("tr", { cls: current ? "current" : "", "data-profile": r.profile }, [
        el("th", { scope: "row" }, [el("code", { text: r.profile }), r.in_switch ? "" : el("span", { cls: "muted small", text: t("s2.peer") })]),
        el("td", { cls: "num", text: fmtPct(r.percent) }),
        el("td", { cls: "bar-cell" }, [bar(r.percent / 100, "", r.profile + " " + fmtPct(r.percent))]),
      ]));
    }
    tbl.append(tb);
    box.append(tbl, el("p", { cls: "muted small sig", text: e.signature }));
  }

  // ---------------------------------------------------------------- lazy panels
  const lazy = {};
  function loadLazy(name) {
    const spec = {
      step3: ["/api/yardsticks", "yard", renderStep3, "yardsticks"],
      myths: ["/api/misconceptions", "myths", renderMyths, "myth-list"],
      quiz: ["/api/quiz", "quiz", renderQuiz, "quiz-form"],
    }[name];
    if (!spec || lazy[name]) return;
    lazy[name] = api(spec[0]).then((data) => {
      state[spec[1]] = data;
      document.getElementById(spec[3]).removeAttribute("aria-busy");
      spec[2]();
    }).catch((err) => {
      lazy[name] = null;
      showError(err);
    });
  }

  function setLabel(name) {
    return t("set." + name);
  }

  function renderStep3() {
    const y = state.yard;
    if (!y) return;
    const box = clear(document.getElementById("yardsticks"));
    // open-ended
    const v = y.vqa;
    const vq = el("div", { cls: "card" }, [el("h3", { text: t("s3.vqa_title", { n: v.n }) })]);
    const cols = [["vqa", "s3.col_vqa"], ["em", "s3.col_em"], ["em_any", "s3.col_em_any"]];
    vq.append(metricTable("vqa-table", v.sets, cols));
    vq.append(el("p", { cls: "muted small sig", text: v.signature }));
    box.append(vq);
    // multiple choice
    const m = y.mmbench;
    const mc = el("div", { cls: "card" });
    if (m.available) {
      mc.append(el("h3", { text: t("s3.mmb_title", { n: m.n_questions, rows: m.n_rows }) }));
      const mcols = [["vanilla", "s3.col_vanilla"], ["vanilla_all", "s3.col_vanilla_all"], ["circular", "s3.col_circular"]];
      mc.append(metricTable("mmb-table", m.sets, mcols, m.chance));
      mc.append(el("p", { cls: "muted small sig", text: m.signature }));
    } else {
      mc.append(el("p", { text: t("s3.unavailable", { what: "MMBench" }) }));
    }
    box.append(mc);
    // properties
    const pc = el("div", { cls: "card" }, [el("h3", { text: t("s3.props_title") })]);
    const wrap = el("div", { cls: "table-wrap", tabindex: "0", role: "region", "aria-label": t("s3.props_title") });
    const tbl = el("table", { cls: "plain props", id: "props-table" });
    tbl.append(el("thead", null, [el("tr", null, [
      el("th", { scope: "col", text: t("s3.prop") }),
      ...y.properties.metrics.map((name) => el("th", { scope: "col", text: name })),
    ])]));
    const tb = el("tbody");
    for (const row of y.properties.rows) {
      tb.append(el("tr", null, [
        el("th", { scope: "row", text: t("s3.prop." + row.id) }),
        ...row.values.map((val) => el("td", { cls: "prop-" + val, text: t("s3." + val) })),
      ]));
    }
    tbl.append(tb);
    wrap.append(tbl);
    pc.append(wrap);
    box.append(pc);
  }

  function metricTable(id, sets, cols, chance) {
    const wrap = el("div", { cls: "table-wrap", tabindex: "0", role: "region", "aria-label": id });
    const tbl = el("table", { cls: "plain metrics", id });
    tbl.append(el("thead", null, [el("tr", null, [
      el("th", { scope: "col", text: t("s3.col_set") }),
      ...cols.map(([, key]) => el("th", { scope: "col", text: t(key) })),
    ])]));
    const tb = el("tbody");
    const addRow = (label, desc, values, cls, setName) => {
      const head = el("th", { scope: "row" }, [
        el("span", { cls: "set-name", text: label }),
        desc ? el("span", { cls: "set-desc", text: desc }) : null,
      ]);
      const tr = el("tr", { cls, "data-set": setName }, [head]);
      for (const [key, label2] of cols) {
        const val = values[key];
        tr.append(el("td", { cls: "metric-cell", "data-metric": key }, [
          el("span", { cls: "num", text: fmtPct(val) }),
          typeof val === "number" ? bar(val / 100, "metric " + key, t(label2) + " " + fmtPct(val)) : null,
        ]));
      }
      tb.append(tr);
    };
    for (const s of sets) {
      const label = setLabel(s.name);
      addRow(label, t("setdesc." + s.name), s, s.simulated ? "simulated" : "", s.name);
    }
    if (chance) addRow(t("s3.chance"), t("s3.chance_random", { draws: chance.draws }), chance, "chance", "chance");
    tbl.append(tb);
    wrap.append(tbl);
    const note = el("p", { cls: "muted small" }, [el("span", { cls: "pill", text: t("s3.simulated") })]);
    return el("div", null, [note, wrap]);
  }

  function renderMyths() {
    const list = state.myths;
    if (!list) return;
    const box = clear(document.getElementById("myth-list"));
    for (const m of list.items) {
      const ev = el("ul", { cls: "evidence" });
      for (const item of m.evidence) {
        const args = {};
        for (const [k, val] of Object.entries(item.args || {})) {
          args[k] = typeof val === "string" && val.startsWith("@") ? t(val.slice(1)) : val;
        }
        ev.append(el("li", null, [
          el("span", { text: t(item.key, args) }),
          el("strong", { cls: "num", text: " " + item.value }),
        ]));
      }
      box.append(el("article", { cls: "card myth", id: "myth-" + m.id }, [
        el("p", { cls: "myth-claim" }, [el("span", { cls: "pill bad", text: t("myths.myth") }), " ", el("s", { text: t("myth." + m.id) })]),
        ev,
        el("p", { cls: "myth-truth" }, [el("span", { cls: "pill good", text: t("myths.truth") }), " " + t("truth." + m.id)]),
      ]));
    }
  }

  function renderQuiz() {
    const q = state.quiz;
    if (!q) return;
    const form = clear(document.getElementById("quiz-form"));
    q.questions.forEach((item, qi) => {
      const fs = el("fieldset", { cls: "card quiz-q", id: "quiz-" + item.id });
      fs.append(el("legend", { text: (qi + 1) + ". " + t(item.text) }));
      item.options.forEach((opt, oi) => {
        const id = "quiz-" + item.id + "-" + oi;
        const input = el("input", { type: "radio", name: "quiz-" + item.id, id, value: String(oi) });
        const label = typeof opt === "string" && opt.startsWith("@") ? t(opt.slice(1)) : String(opt);
        fs.append(el("div", { cls: "radio" }, [input, el("label", { for: id, text: label })]));
      });
      fs.append(el("p", { cls: "feedback", "aria-live": "polite", id: "feedback-" + item.id }));
      form.append(fs);
    });
    const check = el("button", { type: "submit", cls: "primary", text: t("quiz.check") });
    const reset = el("button", { type: "button", text: t("quiz.reset") });
    reset.addEventListener("click", () => { state.quizChecked = false; renderQuiz(); });
    const total = el("p", { id: "quiz-total", cls: "score-line", "aria-live": "polite" });
    form.append(el("div", { cls: "quiz-actions" }, [check, reset]), total);
    if (state.quizChecked) checkQuiz();
  }

  function checkQuiz() {
    const q = state.quiz;
    let right = 0;
    for (const item of q.questions) {
      const chosen = document.querySelector("input[name='quiz-" + item.id + "']:checked");
      const fb = document.getElementById("feedback-" + item.id);
      const correct = item.options[item.correct];
      const answer = typeof correct === "string" && correct.startsWith("@") ? t(correct.slice(1)) : String(correct);
      const ok = chosen && Number(chosen.value) === item.correct;
      if (ok) right += 1;
      fb.className = "feedback " + (ok ? "good" : "bad");
      fb.textContent = (ok ? t("quiz.correct") : chosen ? t("quiz.wrong", { answer }) : t("quiz.unanswered", { answer })) +
        " " + t(item.explain);
    }
    document.getElementById("quiz-total").textContent = t("quiz.score", { right, total: q.questions.length });
  }

  function renderAll() {
    renderStep1();
    renderProfileSwitch();
    renderStep2();
    renderStep3();
    renderMyths();
    if (state.quiz) renderQuiz();
  }

  // ---------------------------------------------------------------- start
  async function start() {
    try {
      const saved = localStorage.getItem("vqm-lang");
      if (saved && saved in I18N) state.lang = saved;
    } catch (e) { /* ignore */ }
    const params = new URLSearchParams(location.search);
    if (params.get("lang") in I18N) state.lang = params.get("lang");
    initTabs();
    for (const b of document.querySelectorAll(".lang button")) {
      b.addEventListener("click", () => setLang(b.dataset.lang));
    }
    document.getElementById("preset").addEventListener("change", (e) => loadPreset(e.target.value));
    const pred = document.getElementById("prediction");
    const pred2 = document.getElementById("prediction2");
    pred.addEventListener("input", () => { state.prediction = pred.value; pred2.value = pred.value; requestExplain(); });
    pred2.addEventListener("input", () => { state.prediction = pred2.value; pred.value = pred2.value; requestExplain(); });
    document.getElementById("quiz-form").addEventListener("submit", (e) => {
      e.preventDefault();
      state.quizChecked = true;
      checkQuiz();
    });
    try {
      const [profiles, presets] = await Promise.all([api("/api/profiles"), api("/api/presets")]);
      state.profiles = profiles.profiles;
      state.switchProfiles = profiles.switch;
      state.version = profiles.version;
      state.presets = presets.presets;
    } catch (err) {
      showError(err);
      return;
    }
    applyStaticText();
    renderProfileSwitch();
    const wanted = params.get("preset");
    const first = state.presets.some((x) => x.id === wanted) ? wanted : state.presets[0].id;
    state.presetId = first;
    renderPresetSelect();
    loadPreset(first);
    selectTab(location.hash.slice(1) || "step1", false);
    document.body.dataset.ready = "1";
  }

  document.addEventListener("DOMContentLoaded", start);
})();
