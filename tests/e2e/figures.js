// The figure check (tests/e2e/figures.rs): runs in headless Chromium on a
// page that holds every SVG inline, one per <div class="figure">, and
// writes what it finds into <pre id="result"> as JSON:
// {"figures": [{"name", "texts", "panels", "problems": [...]}]}.
// Every box is the element's own bounding box carried through its
// transform (a turned label is a turned rectangle), so turned labels are
// compared by their real outline, not by the box around it.
(function () {
  const TOL = 1.0; // pixels two boxes may share before they overlap
  const BOUNDED = /overlap|accuracy|coverage|correlation|precision/i;

  function quad(el) {
    const b = el.getBBox();
    const m = el.getCTM();
    const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
    return pts.map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  }
  function axes(q) {
    const out = [];
    for (let i = 0; i < q.length; i++) {
      const a = q[i], b = q[(i + 1) % q.length];
      const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
      out.push([-(b[1] - a[1]) / len, (b[0] - a[0]) / len]);
    }
    return out;
  }
  function project(q, ax) {
    let lo = Infinity, hi = -Infinity;
    for (const p of q) { const d = p[0] * ax[0] + p[1] * ax[1]; lo = Math.min(lo, d); hi = Math.max(hi, d); }
    return [lo, hi];
  }
  // Separating axis test: do two convex quads overlap by more than TOL?
  function overlap(p, q) {
    for (const ax of axes(p).concat(axes(q))) {
      const [a0, a1] = project(p, ax), [b0, b1] = project(q, ax);
      if (Math.min(a1, b1) - Math.max(a0, b0) <= TOL) return false;
    }
    return true;
  }
  function inside(q, r, tol) {
    return q.every(([x, y]) => x >= r[0] - tol && y >= r[1] - tol && x <= r[2] + tol && y <= r[3] + tol);
  }
  function box(q) {
    const xs = q.map(p => p[0]), ys = q.map(p => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }
  function said(el) { return JSON.stringify(el.textContent); }

  const figures = [];
  for (const div of document.querySelectorAll('div.figure')) {
    const name = div.dataset.name;
    const svg = div.querySelector('svg');
    const problems = [];
    const w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
    if (w > 1600 || h > 900 || w <= 0 || h <= 0) problems.push(`size ${w} x ${h} is not within a 1600 x 900 slide`);
    const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim() !== '');
    const tq = texts.map(quad);
    for (let i = 0; i < texts.length; i++) {
      const size = parseFloat(getComputedStyle(texts[i]).fontSize);
      if (size < 14) problems.push(`label ${said(texts[i])} is set at ${size} px, under 14`);
      if (!inside(tq[i], [0, 0, w, h], 0.5)) problems.push(`label ${said(texts[i])} is cut off by the figure's edge`);
      for (let j = i + 1; j < texts.length; j++) {
        if (overlap(tq[i], tq[j])) problems.push(`labels ${said(texts[i])} and ${said(texts[j])} overlap`);
      }
    }
    const bars = Array.from(svg.querySelectorAll('.bar')).map(quad);
    texts.forEach((t, i) => {
      if (bars.some(b => overlap(b, tq[i]))) problems.push(`label ${said(t)} is covered by a bar`);
    });
    for (const cell of svg.querySelectorAll('g.cell')) {
      const r = box(quad(cell.querySelector('rect')));
      for (const t of cell.querySelectorAll('text')) {
        if (!inside(quad(t), r, 0.5)) problems.push(`cell value ${said(t)} spills out of its cell`);
      }
    }
    const plots = Array.from(svg.querySelectorAll('.plot-area')).map(p => quad(p));
    for (const legend of svg.querySelectorAll('.legend')) {
      const parts = Array.from(legend.querySelectorAll('*')).filter(e => e.getBBox).map(quad);
      if (parts.some(p => plots.some(q => overlap(p, q)))) problems.push('a legend lies on a plotting area');
    }
    for (const axis of svg.querySelectorAll('g.axis.y')) {
      const title = axis.dataset.title || '';
      const max = axis.dataset.max;
      if (BOUNDED.test(title) && max === undefined) problems.push(`axis "${title}" measures a bounded quantity but declares no maximum`);
      if (max === undefined) continue;
      const ticks = Array.from(axis.querySelectorAll('text.tick'));
      if (ticks.length === 0) { problems.push(`axis "${title}" has no ticks`); continue; }
      const values = ticks.map(t => parseFloat(t.textContent));
      const top = Math.max(...values);
      if (Math.abs(top - parseFloat(max)) > 1e-9) problems.push(`axis "${title}" runs to ${top}, not to its maximum ${max}`);
      const topTick = ticks[values.indexOf(top)];
      const tb = box(quad(topTick));
      const y = (tb[1] + tb[3]) / 2;
      const mark = box(quad(axis.querySelector('.tick-mark')));
      const plot = plots.map(box).find(p => Math.abs(p[0] - mark[2]) < 1.5 && mark[1] >= p[1] - 3 && mark[3] <= p[3] + 3);
      if (!plot) problems.push(`axis "${title}" has no plotting area beside it`);
      else if (Math.abs(plot[1] - y) > 3) problems.push(`axis "${title}" goes on above its maximum ${max} (top tick at ${y.toFixed(1)}, plot top at ${plot[1].toFixed(1)})`);
    }
    figures.push({ name, texts: texts.length, panels: plots.length, problems });
  }
  document.getElementById('result').textContent = JSON.stringify({ figures });
})();
