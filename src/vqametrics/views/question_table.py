"""The report's per-question table: searchable and sortable in the page, downloadable as CSV.

Self-contained: the rows are embedded as JSON and drawn by a few lines of inline JavaScript
(no library, no network); the CSV is a ``data:`` URI, so the download works offline too. Without
JavaScript the section still offers the CSV.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..core.display import answer_counts

__all__ = ["question_csv", "question_rows", "question_table_html"]


def question_rows(
    question_ids: Sequence[Any],
    texts: Mapping[Any, str],
    answer_types: Sequence[str | None],
    answers: Sequence[Sequence[str]],
    runs: Sequence[tuple[str, Sequence[str | None], Sequence[float]]],
) -> tuple[list[str], list[list[Any]]]:
    """Header and rows: id, question, answer type, the human answers (grouped with counts),
    then per run its prediction and score in percent (unrounded)."""
    header = ["question_id", "question", "answer_type", "answers"]
    for name, _, _ in runs:
        header += [f"{name}: prediction", f"{name}: score"]
    rows: list[list[Any]] = []
    for i, qid in enumerate(question_ids):
        row: list[Any] = [qid, texts.get(qid, ""), answer_types[i] or "", answer_counts(answers[i])]
        for _, preds, scores in runs:
            row += [preds[i], 100 * scores[i]]
        rows.append(row)
    return header, rows


def question_csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The rows as CSV (scores unrounded; a missing prediction is an empty cell)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if c is None else repr(c) if isinstance(c, float) else c for c in r])
    return buf.getvalue()


_JS = """
(function(){
var data=JSON.parse(document.getElementById('qdata').textContent);
var head=data.header,rows=data.rows,fixed=data.fixed||[],limit=200,key=-1,dir=1;
var q=document.getElementById('qsearch'),info=document.getElementById('qinfo');
var thead=document.querySelector('#qtable thead');
var tbody=document.querySelector('#qtable tbody');
function text(v,i){
  if(v===null)return '(missing)';
  if(typeof v==='number'&&fixed.indexOf(i)>=0)return v.toFixed(2);
  return String(v);
}
function esc(s){return s.replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/>/g,'&gt;');}
function hit(r,t){
  return r.some(function(c){return c!==null&&String(c).toLowerCase().indexOf(t)>=0;});
}
function order(a,b){
  var x=a[key],y=b[key];
  if(x===y)return 0;
  if(x===null)return 1;
  if(y===null)return -1;
  if(typeof x==='number'&&typeof y==='number')return (x-y)*dir;
  return String(x).localeCompare(String(y))*dir;
}
function row(r){
  return '<tr>'+r.map(function(c,i){
    return '<td'+(typeof c==='number'?' class="n"':'')+'>'+esc(text(c,i))+'</td>';
  }).join('')+'</tr>';
}
function draw(){
  var t=q.value.toLowerCase();
  var out=t?rows.filter(function(r){return hit(r,t);}):rows.slice();
  if(key>=0)out.sort(order);
  tbody.innerHTML=out.slice(0,limit).map(row).join('');
  info.textContent='showing '+Math.min(out.length,limit)+' of '+out.length+
    ' matching questions ('+rows.length+' in all)';
}
thead.innerHTML='<tr>'+head.map(function(h,i){
  return '<th scope="col" data-i="'+i+'" title="sort">'+esc(h)+' &#8597;</th>';
}).join('')+'</tr>';
thead.addEventListener('click',function(e){
  var th=e.target.closest('th');
  if(!th)return;
  var i=+th.getAttribute('data-i');
  dir=(key===i)?-dir:1;
  key=i;
  draw();
});
q.addEventListener('input',draw);
draw();
})();
"""


def question_table_html(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The section: a search box, the table (drawn by inline JS), and the CSV download link."""
    fixed = [i for i, h in enumerate(header) if h.endswith(": score")]  # 2 decimals
    payload = orjson.dumps({"header": list(header), "rows": rows, "fixed": fixed}).decode()
    payload = payload.replace("</", "<\\/")  # never close the script element early
    data_uri = "data:text/csv;charset=utf-8;base64," + base64.b64encode(
        question_csv(header, rows).encode("utf-8")
    ).decode("ascii")
    return (
        '<h2 id="questions">Every question</h2>'
        "<p>Search any column (question id, words of the question, an answer, a prediction); "
        "click a column header to sort. Scores in percent. "
        f'<a download="per_question.csv" href="{html.escape(data_uri, quote=True)}">'
        "Download all rows as CSV</a>.</p>"
        '<p><input id="qsearch" type="search" placeholder="search…" aria-label="search the '
        'questions"> <span id="qinfo" class="small muted">(needs JavaScript; the CSV has every '
        "row)</span></p>"
        '<div class="tw"><table id="qtable"><thead></thead><tbody></tbody></table></div>'
        f'<script type="application/json" id="qdata">{payload}</script>'
        f"<script>{_JS}</script>"
    )
