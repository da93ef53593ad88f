"""The report's per-question table script, run in node with a stub DOM (skipped without node)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from vqametrics.views.question_table import _JS

HARNESS = """
const data = %s;
const els = {
  qdata: {textContent: JSON.stringify(data)},
  qsearch: {value: '', on: {}, addEventListener(k, f) { this.on[k] = f; }},
  qinfo: {textContent: ''},
};
const thead = {innerHTML: '', on: {}, addEventListener(k, f) { this.on[k] = f; }};
const tbody = {innerHTML: ''};
global.document = {
  getElementById: (id) => els[id],
  querySelector: (sel) => (sel.endsWith('thead') ? thead : tbody),
};
%s
const out = [];
const rows = () => (tbody.innerHTML.match(/<tr>.*?<\\/tr>/g) || []).map(
  (r) => (r.match(/<td[^>]*>(.*?)<\\/td>/g) || []).map((c) => c.replace(/<[^>]+>/g, '')));
out.push({info: els.qinfo.textContent, rows: rows()});
els.qsearch.value = 'DOG';
els.qsearch.on.input();
out.push({info: els.qinfo.textContent, rows: rows()});
els.qsearch.value = '';
const th = (i) => ({target: {closest: () => ({getAttribute: () => String(i)})}});
thead.on.click(th(3));
out.push({rows: rows()});
thead.on.click(th(3));
out.push({rows: rows()});
console.log(JSON.stringify({head: thead.innerHTML, out}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_search_and_sort() -> None:
    data = {
        "header": ["question_id", "question", "answers", "m: score"],
        "fixed": [3],
        "rows": [
            [1, "what animal?", "'dog'x10", 100.0],
            [2, "what color <b>?", "'red'x10", 0.0],
            [3, "is it a dog?", "'yes'x10", 30.0],
            [4, "missing", "'x'x10", None],
        ],
    }
    script = HARNESS % (json.dumps(data), _JS)
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    first, search, up, down = result["out"]
    assert first["info"] == "showing 4 of 4 matching questions (4 in all)"
    assert first["rows"][1][1] == "what color &lt;b&gt;?"  # escaped, never markup
    assert first["rows"][3][3] == "(missing)"
    assert search["info"] == "showing 2 of 2 matching questions (4 in all)"  # case-insensitive
    assert [r[0] for r in search["rows"]] == ["1", "3"]
    assert [r[3] for r in up["rows"]] == ["0.00", "30.00", "100.00", "(missing)"]
    assert [r[3] for r in down["rows"]] == ["100.00", "30.00", "0.00", "(missing)"]
    assert "m: score" in result["head"]
