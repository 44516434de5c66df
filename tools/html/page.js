// kwire pages: draws the page from its JSON data (the element #kwire-data, written by
// tools/html/page.cc). Every string from the data is set as textContent, never as
// markup. No network, no library.
(function () {
  'use strict';

  var SECTION_NAMES = ['', 'framing', 'rpc header', 'request body', 'response body',
                       'RecordBatch', 'Record', 'tagged_fields'];
  var KIND_FIELD = 4, KIND_ELEMENT = 6;  // PrintNode::Kind values
  var GRID_CHUNK_ROWS = 256;             // grid rows drawn at a time (4 KiB of bytes)
  var GRID_BIG_CHUNK_ROWS = 4096;        // at most this many at once (64 KiB, under 1 s)
  var TREE_EXPAND_ALL = 2000;            // trees up to this many nodes open fully
  var TREE_OPEN_DEPTH = 2;               // bigger ones: nodes above this depth open
  var KIDS_CHUNK = 500;                  // children drawn at a time under one node
  var EXPAND_ALL_MAX = 20000;            // "expand all" only up to this many nodes

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function hex4(n, digits) {
    var s = n.toString(16);
    while (s.length < digits) s = '0' + s;
    return s;
  }
  function range(offset, size) { return '[0x' + hex4(offset, 4) + ', ' + size + 'B]'; }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function legend(present) {
    var box = el('div', 'legend');
    box.setAttribute('aria-label', 'byte sections');
    for (var s = 1; s < SECTION_NAMES.length; s++) {
      var item = add(box, el('span', 'legend-item' + (present && !present[s] ? ' absent' : '')));
      item.setAttribute('data-section', SECTION_NAMES[s]);
      add(item, el('span', 'swatch s' + s));
      add(item, el('span', 'legend-name', SECTION_NAMES[s]));
    }
    return box;
  }

  function summaryList(rows) {
    var dl = el('dl', 'summary');
    rows.forEach(function (r) {
      var d = add(dl, el('div', 'summary-item'));
      add(d, el('dt', null, r[0]));
      add(d, el('dd', null, r[1]));
    });
    return dl;
  }

  // ---- One frame: summary, error, legend, byte grid, object tree, schema.
  function FrameViewer(frame, root) {
    this.f = frame;
    this.size = frame.size;
    var n = frame.nodes.length;
    // Nodes: columns of the data rows (page.h, FrameData).
    this.depth = new Int32Array(n);
    this.offset = new Float64Array(n);
    this.len = new Float64Array(n);
    this.parent = new Int32Array(n);
    this.kids = new Array(n);
    this.kidIndex = new Int32Array(n);  // position among the parent's children
    this.path = new Array(n);
    var stack = [];
    for (var i = 0; i < n; i++) {
      var r = frame.nodes[i];
      this.depth[i] = r[0];
      this.offset[i] = r[1];
      this.len[i] = r[2];
      while (stack.length && this.depth[stack[stack.length - 1]] >= r[0]) stack.pop();
      var p = stack.length ? stack[stack.length - 1] : -1;
      this.parent[i] = p;
      this.path[i] = (p >= 0 ? this.path[p].slice(0, r[10]) : '') + r[11];
      if (p >= 0) this.kidIndex[i] = (this.kids[p] || (this.kids[p] = [])).push(i) - 1;
      stack.push(i);
    }
    this.sections = new Uint8Array(this.size);
    var present = [];
    frame.sections.forEach(function (run) {
      this.sections.fill(run[2], run[0], run[1]);
      present[run[2]] = true;
    }, this);
    this.err = frame.error;
    this.errOffset = frame.error && typeof frame.error.offset === 'number' ? frame.error.offset : -1;
    // The cell marked as failing: the error's byte, or past the last byte the end cell.
    this.failAt = this.errOffset < 0 ? -1 : Math.min(this.errOffset, this.size);
    // A byte and a node marked by the page (conformance reports: where a check failed).
    this.mark = frame.mark || null;
    this.markAt = this.mark && typeof this.mark.offset === 'number' ? Math.min(this.mark.offset, this.size) : -1;
    this.endCell = this.errOffset >= this.size || this.markAt >= this.size;
    this.lastFailed = -1;
    for (var k = 0; k < n; k++) if (frame.nodes[k][4] & 1) this.lastFailed = k;
    this.rowEls = new Array(n);    // node index -> its row element, once drawn
    this.kidBox = new Array(n);    // node index -> its children's box, once drawn
    this.kidsDrawn = new Int32Array(n);
    this.cells = [];               // byte index -> its cell, once drawn
    this.drawnRows = 0;
    this.hlNode = -1; this.hlCells = [];
    this.selNode = -1; this.selCells = [];
    this.build(root, present);
  }

  FrameViewer.prototype.build = function (root, present) {
    var f = this.f, self = this;
    var sec = add(root, el('section', 'frame' + (f.status === 'ok' ? '' : ' frame-error')));
    this.root = sec;
    if (f.heading) add(sec, el('h2', 'frame-heading', f.heading));
    add(sec, el('p', 'frame-title', f.title || ''));
    add(sec, summaryList(f.summary));
    if (f.error) {
      var box = add(sec, el('div', 'error'));
      box.setAttribute('role', 'alert');
      add(box, el('strong', null, 'Does not decode: '));
      add(box, el('span', 'error-message', f.error.message));
      var facts = add(box, el('dl', 'error-facts'));
      [['kind', f.error.kind], ['offset', this.errOffset >= 0 ? '0x' + hex4(this.errOffset, 4) +
        ' (byte ' + this.errOffset + (this.errOffset >= this.size ? ', past the last byte' : '') + ')' : null],
       ['path', f.error.path], ['detail', f.error.detail]].forEach(function (kv) {
        if (kv[1] === null || kv[1] === undefined || kv[1] === '') return;
        var d = add(facts, el('div'));
        add(d, el('dt', null, kv[0]));
        add(d, el('dd', 'error-' + kv[0], kv[1]));
      });
      if (f.error.hints && f.error.hints.length) {
        // What the failure points at (kwire explain's "hint:" lines).
        var hints = add(box, el('ul', 'error-hints'));
        f.error.hints.forEach(function (h) { add(hints, el('li', 'error-hint', 'hint: ' + h)); });
      }
      if (this.errOffset >= 0) {
        var go = add(box, el('button', 'error-goto', 'show the failing byte'));
        go.type = 'button';
        go.addEventListener('click', function () { self.selectByte(self.failAt, true); });
      }
    }
    add(sec, legend(present));
    this.info = add(sec, el('div', 'info', 'Hover or click a byte or a tree row.'));
    this.info.setAttribute('aria-live', 'polite');
    var panes = add(sec, el('div', 'panes'));
    var gp = add(panes, el('div', 'pane grid-pane'));
    add(gp, el('h3', null, 'byte layout (' + plural(this.size, 'byte', 'bytes') + ', 16 per row)'));
    this.buildGrid(gp);
    var tp = add(panes, el('div', 'pane tree-pane'));
    var th = add(tp, el('h3', null, 'object tree (' + plural(f.nodes.length, 'node', 'nodes') + ')'));
    var tools = add(th, el('span', 'tree-tools'));
    var ex = add(tools, el('button', 'tree-expand', 'expand all'));
    ex.type = 'button';
    ex.addEventListener('click', function () { self.expandAll(); });
    if (f.nodes.length > EXPAND_ALL_MAX) {
      ex.disabled = true;
      ex.title = 'too many nodes to draw at once: open the levels you need';
    }
    var co = add(tools, el('button', 'tree-collapse', 'collapse'));
    co.type = 'button';
    co.addEventListener('click', function () { self.collapseAll(); });
    if (f.nodes_dropped > 0) {
      add(tp, el('p', 'note', plural(f.nodes_dropped, 'more node is', 'more nodes are') +
          ' not shown (page limit).'));
    }
    this.tree = add(tp, el('div', 'tree'));
    this.tree.setAttribute('role', 'tree');
    this.buildTree();
    if (f.schema) this.buildSchema(sec, f.schema);
  };

  // ---- Byte grid, drawn GRID_CHUNK_ROWS rows at a time.
  FrameViewer.prototype.buildGrid = function (pane) {
    var self = this;
    this.digits = this.size > 0x10000 ? (this.size > 0x1000000 ? 8 : 6) : 4;
    var grid = add(pane, el('div', 'grid'));
    grid.style.setProperty('--offset-digits', String(this.digits));
    var head = add(grid, el('div', 'grid-row grid-head'));
    add(head, el('span', 'off', ''));
    for (var c = 0; c < 16; c++) add(head, el('span', 'col', c.toString(16).toUpperCase()));
    this.gridBody = add(grid, el('div', 'grid-body'));
    this.totalRows = Math.ceil(this.size / 16);
    if (this.endCell && this.size % 16 === 0) this.totalRows++;  // the end cell
    this.more = add(pane, el('div', 'grid-more'));
    this.moreBtn = add(this.more, el('button', 'grid-more-button'));
    this.moreBtn.type = 'button';
    this.moreBtn.addEventListener('click', function () { self.drawRows(self.drawnRows + GRID_CHUNK_ROWS); });
    this.allBtn = add(this.more, el('button', 'grid-all-button', 'show all'));
    this.allBtn.type = 'button';
    this.allBtn.addEventListener('click', function () { self.drawRows(self.drawnRows + GRID_BIG_CHUNK_ROWS); });
    grid.addEventListener('mouseover', function (e) {
      var b = self.cellOffset(e.target);
      if (b >= 0) self.hoverByte(b);
    });
    grid.addEventListener('mouseleave', function () { self.clearHover(); });
    grid.addEventListener('click', function (e) {
      var b = self.cellOffset(e.target);
      if (b >= 0) self.selectByte(b, true);
    });
    this.drawRows(GRID_CHUNK_ROWS);
  };

  FrameViewer.prototype.cellOffset = function (t) {
    if (!t || !t.getAttribute) return -1;
    var v = t.getAttribute('data-offset');
    return v === null ? -1 : Number(v);
  };

  FrameViewer.prototype.drawRows = function (upTo) {
    upTo = Math.min(upTo, this.totalRows);
    var hex = this.f.hex, frag = document.createDocumentFragment();
    for (var row = this.drawnRows; row < upTo; row++) {
      var line = add(frag, el('div', 'grid-row'));
      add(line, el('span', 'off', hex4(row * 16, this.digits)));
      for (var b = row * 16; b < row * 16 + 16; b++) {
        var cell;
        if (b < this.size) {
          var h = hex.substr(2 * b, 2);
          cell = el('span', 'b s' + this.sections[b] + (h === '**' ? ' redacted' : ''), h);
          cell.setAttribute('data-offset', String(b));
          this.cells[b] = cell;
        } else if (b === this.size && this.endCell) {
          cell = el('span', 'b end', '\u2205');
          cell.title = this.errOffset >= this.size ? 'end of the frame: decoding needed more bytes' : 'end of the frame';
          cell.setAttribute('data-offset', String(b));
          this.cells[b] = cell;
        } else {
          cell = el('span', 'b pad', '');
        }
        if (b === this.failAt) {
          cell.classList.add('fail');
          cell.setAttribute('data-fail', 'true');
        }
        if (b === this.markAt) {
          cell.classList.add('mark');
          cell.setAttribute('data-mark', 'true');
          cell.title = this.mark.why || 'marked';
        }
        add(line, cell);
      }
    }
    this.gridBody.appendChild(frag);
    this.drawnRows = Math.max(this.drawnRows, upTo);
    var left = this.totalRows - this.drawnRows;
    this.more.hidden = left <= 0;
    this.moreBtn.textContent = 'show ' + plural(Math.min(left, GRID_CHUNK_ROWS), 'more row', 'more rows') +
        ' (' + plural(Math.max(0, this.size - this.drawnRows * 16), 'byte', 'bytes') + ' not drawn)';
    this.allBtn.textContent = left <= GRID_BIG_CHUNK_ROWS ? 'show all' : 'show ' + GRID_BIG_CHUNK_ROWS + ' more rows';
    // Newly drawn cells take the current highlights.
    if (this.selNode >= 0) this.markCells(this.selNode, 'sel', true);
    if (this.hlNode >= 0) this.markCells(this.hlNode, 'hl', true);
  };

  // ---- Object tree, children drawn when first opened.
  FrameViewer.prototype.buildTree = function () {
    var self = this, n = this.f.nodes.length;
    this.open = new Uint8Array(n);
    var all = n <= TREE_EXPAND_ALL;
    for (var i = 0; i < n; i++) if (all || this.depth[i] < TREE_OPEN_DEPTH) this.open[i] = 1;
    // The way to a failed node, and to the marked one, is open.
    this.markNode = -1;
    for (var k = 0; k < n; k++) {
      var marked = this.mark && this.mark.path !== '' && this.path[k] === this.mark.path;
      if (marked) this.markNode = k;
      if ((this.f.nodes[k][4] & 1) || marked) for (var p = this.parent[k]; p >= 0; p = this.parent[p]) this.open[p] = 1;
    }
    if (n > 0) this.tree.appendChild(this.nodeEl(0));
    this.tree.addEventListener('mouseover', function (e) {
      var i = self.rowIndex(e.target);
      if (i >= 0) self.hover(i);
    });
    this.tree.addEventListener('mouseleave', function () { self.clearHover(); });
    this.tree.addEventListener('click', function (e) {
      var i = self.rowIndex(e.target);
      if (i < 0) return;
      if (e.target.classList.contains('toggle')) self.toggle(i);
      else self.select(i, true, false);
    });
    this.tree.addEventListener('keydown', function (e) {
      var i = self.rowIndex(e.target);
      if (i < 0) return;
      if (e.key === 'Enter' || e.key === ' ') { self.select(i, true, false); e.preventDefault(); }
      if (e.key === 'ArrowRight' && !self.open[i]) { self.toggle(i); e.preventDefault(); }
      if (e.key === 'ArrowLeft' && self.open[i]) { self.toggle(i); e.preventDefault(); }
    });
  };

  FrameViewer.prototype.rowIndex = function (t) {
    while (t && t !== this.tree) {
      if (t.classList && t.classList.contains('row')) return Number(t.getAttribute('data-index'));
      t = t.parentNode;
    }
    return -1;
  };

  FrameViewer.prototype.valueText = function (i) {
    var r = this.f.nodes[i], value = r[7], detail = r[8], kind = r[3], type = r[6];
    if (value === '') {
      var structish = kind === KIND_FIELD || kind === KIND_ELEMENT;
      return structish && this.kids[i] ? '= struct' : '';
    }
    if (kind === KIND_FIELD && type.indexOf('[]') === 0 && value !== 'null') {
      return '= ' + value + (value === '1' ? ' element' : ' elements');
    }
    return '= ' + value + (detail ? ' ' + detail : '');
  };

  FrameViewer.prototype.nodeEl = function (i) {
    var r = this.f.nodes[i];
    var wrap = el('div', 'node');
    var row = add(wrap, el('div', 'row' + ((r[4] & 1) ? ' failed' : '') + ((r[4] & 2) ? ' redacted' : '')));
    row.setAttribute('data-index', String(i));
    row.setAttribute('data-path', this.path[i]);
    row.setAttribute('role', 'treeitem');
    row.tabIndex = 0;
    row.style.paddingLeft = (0.3 + 1.1 * r[0]) + 'em';
    var hasKids = !!this.kids[i];
    var tog = add(row, el('span', 'toggle' + (hasKids ? '' : ' leaf'), hasKids ? (this.open[i] ? '\u25be' : '\u25b8') : '\u00b7'));
    if (hasKids) row.setAttribute('aria-expanded', this.open[i] ? 'true' : 'false');
    tog.setAttribute('aria-hidden', 'true');
    add(row, el('span', 'label', r[5]));
    if (r[6]) add(row, el('span', 'type', r[6]));
    var v = this.valueText(i);
    if (v) add(row, el('span', 'value', v));
    add(row, el('span', 'range', range(r[1], r[2])));
    if (r[9]) add(row, el('span', 'note', r[9]));
    if (r[4] & 1) add(row, el('span', 'failed-mark', '\u25c0 decoding failed here'));
    if (i === this.markNode) {
      row.classList.add('marked');
      add(row, el('span', 'marked-mark', '\u25c0 marked'));
    }
    this.rowEls[i] = row;
    if (i === this.hlNode) row.classList.add('hl');
    if (i === this.selNode) row.classList.add('sel');
    if (hasKids && this.open[i]) this.drawKids(wrap, i);
    return wrap;
  };

  FrameViewer.prototype.drawKids = function (wrap, i) {
    var box = add(wrap, el('div', 'kids'));
    box.setAttribute('role', 'group');
    this.kidBox[i] = box;
    this.kidsDrawn[i] = 0;
    this.drawMoreKids(i, KIDS_CHUNK);
    return box;
  };

  // Draws the children of node i up to index upTo (KIDS_CHUNK at a time, then a button).
  FrameViewer.prototype.drawMoreKids = function (i, upTo) {
    var kids = this.kids[i], box = this.kidBox[i], from = this.kidsDrawn[i], self = this;
    upTo = Math.min(kids.length, upTo);
    if (from >= upTo) return;
    if (box.lastChild && box.lastChild.classList.contains('kids-more')) box.removeChild(box.lastChild);
    var frag = document.createDocumentFragment();
    for (var k = from; k < upTo; k++) frag.appendChild(this.nodeEl(kids[k]));
    box.appendChild(frag);
    this.kidsDrawn[i] = upTo;
    if (upTo < kids.length) {
      var btn = add(box, el('button', 'kids-more', 'show ' + Math.min(KIDS_CHUNK, kids.length - upTo) +
                              ' more (' + upTo + ' of ' + kids.length + ' drawn)'));
      btn.type = 'button';
      btn.style.marginLeft = (0.3 + 1.1 * (this.depth[i] + 1)) + 'em';
      btn.addEventListener('click', function (e) {
        e.stopPropagation();
        self.drawMoreKids(i, upTo + KIDS_CHUNK);
      });
    }
  };

  FrameViewer.prototype.toggle = function (i) {
    var row = this.rowEls[i];
    if (!row || !this.kids[i]) return;
    var wrap = row.parentNode, box = this.kidBox[i];
    this.open[i] = this.open[i] ? 0 : 1;
    row.firstChild.textContent = this.open[i] ? '\u25be' : '\u25b8';
    row.setAttribute('aria-expanded', this.open[i] ? 'true' : 'false');
    if (this.open[i]) {
      if (box) box.hidden = false;
      else this.drawKids(wrap, i);
    } else if (box) {
      box.hidden = true;
    }
  };

  // Opens every ancestor of node i, and draws enough of each one's children, so that
  // its row is drawn.
  FrameViewer.prototype.reveal = function (i) {
    var way = [i];
    for (var p = this.parent[i]; p >= 0; p = this.parent[p]) way.push(p);
    for (var k = way.length - 1; k > 0; k--) {
      var up = way[k], down = way[k - 1];
      if (!this.open[up]) this.toggle(up);
      if (this.kidIndex[down] >= this.kidsDrawn[up]) this.drawMoreKids(up, this.kidIndex[down] + 1);
    }
    return this.rowEls[i];
  };

  FrameViewer.prototype.expandAll = function () {
    var n = this.f.nodes.length;
    for (var i = 0; i < n; i++) this.open[i] = 1;
    this.redrawTree();
  };
  FrameViewer.prototype.collapseAll = function () {
    var n = this.f.nodes.length;
    for (var i = 0; i < n; i++) this.open[i] = this.depth[i] < 1 ? 1 : 0;
    this.redrawTree();
  };
  FrameViewer.prototype.redrawTree = function () {
    this.rowEls = new Array(this.f.nodes.length);
    this.kidBox = new Array(this.f.nodes.length);
    this.kidsDrawn = new Int32Array(this.f.nodes.length);
    while (this.tree.firstChild) this.tree.removeChild(this.tree.firstChild);
    if (this.f.nodes.length > 0) this.tree.appendChild(this.nodeEl(0));
  };

  // ---- Byte <-> node.
  // The deepest node with bytes that covers byte b; for the failing byte (or the end
  // cell) the node where decoding stopped (failed nodes end before that byte).
  FrameViewer.prototype.nodeAt = function (b) {
    if (b >= this.size || (b === this.failAt && this.lastFailed >= 0)) return this.lastFailed;
    if (!this.f.nodes.length) return -1;
    var at = 0;
    for (;;) {
      var kids = this.kids[at], next = -1;
      if (!kids) return at;
      for (var k = kids.length - 1; k >= 0; k--) {
        var c = kids[k];
        if (this.len[c] > 0 && this.offset[c] <= b && b < this.offset[c] + this.len[c]) { next = c; break; }
      }
      if (next < 0) return at;
      at = next;
    }
  };

  FrameViewer.prototype.markCells = function (i, cls, on) {
    var list = cls === 'hl' ? this.hlCells : this.selCells;
    if (!on) {
      list.forEach(function (c) { c.classList.remove(cls); });
      list.length = 0;
      return;
    }
    var lo = this.offset[i], hi = Math.min(this.offset[i] + this.len[i], this.cells.length);
    if (this.len[i] === 0 && (this.f.nodes[i][4] & 1) && this.cells[lo]) hi = lo + 1;  // a failed empty node
    for (var b = lo; b < hi; b++) {
      var c = this.cells[b];
      if (c && !c.classList.contains(cls)) { c.classList.add(cls); list.push(c); }
    }
  };

  FrameViewer.prototype.describe = function (i, b) {
    var r = this.f.nodes[i], parts = [];
    if (b !== undefined) {
      if (b < this.size) {
        var h = this.f.hex.substr(2 * b, 2);
        parts.push('byte 0x' + hex4(b, 4) + ' (' + b + ') = ' + (h === '**' ? 'redacted' : '0x' + h) +
                   (this.sections[b] ? ', ' + SECTION_NAMES[this.sections[b]] : ''));
      } else {
        parts.push('end of the frame (byte ' + b + ')');
      }
    }
    if (i >= 0) {
      var v = this.valueText(i);
      parts.push(this.path[i] + (r[6] ? '  ' + r[6] : '') + (v ? '  ' + v : '') + '  ' + range(r[1], r[2]) +
                 ((r[4] & 1) ? '  (decoding failed here)' : ''));
    }
    return parts.join('  \u2192  ');
  };

  FrameViewer.prototype.hover = function (i, b) {
    if (this.hlNode >= 0 && this.rowEls[this.hlNode]) this.rowEls[this.hlNode].classList.remove('hl');
    this.markCells(-1, 'hl', false);
    this.hlNode = i;
    if (i < 0) return;
    if (this.rowEls[i]) this.rowEls[i].classList.add('hl');
    this.markCells(i, 'hl', true);
    this.info.textContent = this.describe(i, b);
    this.info.setAttribute('data-node', this.path[i]);
  };
  FrameViewer.prototype.hoverByte = function (b) { this.hover(this.nodeAt(b), b); };
  FrameViewer.prototype.clearHover = function () {
    this.hover(-1);
    if (this.selNode >= 0) {
      this.info.textContent = this.describe(this.selNode, this.selByte);
      this.info.setAttribute('data-node', this.path[this.selNode]);
    }
  };

  // Selects node i: its row and its bytes stay marked; scrolls to them.
  FrameViewer.prototype.select = function (i, scrollGrid, scrollTree, b) {
    if (this.selNode >= 0 && this.rowEls[this.selNode]) this.rowEls[this.selNode].classList.remove('sel');
    this.markCells(-1, 'sel', false);
    this.selNode = i;
    this.selByte = b;
    if (i < 0) return;
    var first = this.offset[i];
    if (scrollGrid && first >= this.drawnRows * 16) this.drawRows(Math.floor(first / 16) + 1);
    var row = this.reveal(i);
    if (row) row.classList.add('sel');
    this.markCells(i, 'sel', true);
    this.info.textContent = this.describe(i, b);
    this.info.setAttribute('data-node', this.path[i]);
    if (scrollTree && row) row.scrollIntoView({block: 'nearest'});
    if (scrollGrid && this.cells[first]) this.cells[first].scrollIntoView({block: 'nearest'});
  };
  FrameViewer.prototype.selectByte = function (b, scroll) {
    if (b >= this.drawnRows * 16) this.drawRows(Math.floor(b / 16) + 1);
    this.select(this.nodeAt(b), false, scroll, b);
    if (scroll && this.cells[b]) this.cells[b].scrollIntoView({block: 'nearest'});
  };

  // ---- Schema (site pages): kwire's definition of the message.
  FrameViewer.prototype.buildSchema = function (sec, s) {
    var box = add(sec, el('div', 'schema'));
    add(box, el('h3', null, 'message schema: ' + s.message + ' (kwire\u2019s definition, codec/defs; flexible versions ' + s.flexible + ')'));
    var table = add(box, el('table', 'schema-table'));
    var head = add(add(table, el('thead')), el('tr'));
    ['field', 'type', 'versions', 'nullable', 'tag', 'notes'].forEach(function (h) { add(head, el('th', null, h)); });
    var body = add(table, el('tbody'));
    if (!s.rows.length) {
      var tr0 = add(body, el('tr'));
      var td0 = add(tr0, el('td', 'empty', 'no fields'));
      td0.colSpan = 6;
    }
    s.rows.forEach(function (r) {
      var tr = add(body, el('tr', r[7] ? '' : 'absent'));
      var name = add(tr, el('td', 'field', r[1]));
      name.style.paddingLeft = (0.4 + 1.2 * r[0]) + 'em';
      add(tr, el('td', 'type', r[2]));
      add(tr, el('td', null, r[3]));
      add(tr, el('td', null, r[4] === 'none' ? '' : r[4]));
      add(tr, el('td', null, r[5] === null ? '' : 'tag ' + r[5] + ' (tagged ' + r[6] + ')'));
      var notes = [];
      if (!r[7]) notes.push('not in v' + s.version);
      if (r[8] & 1) notes.push('sensitive');
      if (r[8] & 2) notes.push('ignorable');
      add(tr, el('td', 'notes', notes.join(', ')));
    });
  };

  // ---- Pages.
  function header(title, sub, crumbs) {
    var h = el('header', 'page-header');
    if (crumbs) {
      var nav = add(h, el('nav', 'crumbs'));
      crumbs.forEach(function (c, k) {
        if (k) add(nav, el('span', 'sep', ' / '));
        if (c[1]) {
          var a = add(nav, el('a', null, c[0]));
          a.href = c[1];
        } else {
          add(nav, el('span', null, c[0]));
        }
      });
    }
    add(h, el('h1', null, title));
    if (sub) add(h, el('p', 'subtitle', sub));
    return h;
  }

  function explainPage(data, app) {
    document.title = 'kwire explain: ' + data.title;
    add(app, header('kwire explain', data.frames.length === 1 ? null : data.title));
    if (!data.frames.length) add(app, el('p', 'note', 'No frame was read.'));
    data.frames.forEach(function (f) { new FrameViewer(f, app); });
  }

  function apiPage(data, app) {
    document.title = data.name + ' v' + data.version + ' \u2014 kwire';
    add(app, header(data.name, null, [['kwire', 'index.html'], [data.name + ' v' + data.version, null]]));
    add(app, el('p', 'intro', data.intro));
    add(app, summaryList(data.summary));
    if (data.versions && data.versions.length) {
      var vs = add(app, el('div', 'versions'));
      add(vs, el('h2', null, 'versions'));
      var table = add(vs, el('table', 'versions-table'));
      var head = add(add(table, el('thead')), el('tr'));
      ['version', 'flexible', 'headers', 'first Kafka release', 'last', 'status'].forEach(function (h) { add(head, el('th', null, h)); });
      var body = add(table, el('tbody'));
      data.versions.forEach(function (v) {
        var tr = add(body, el('tr', v.version === data.version ? 'current-page' : ''));
        var td = add(tr, el('td'));
        if (v.href && v.version !== data.version) {
          var a = add(td, el('a', null, 'v' + v.version));
          a.href = v.href;
        } else {
          td.textContent = 'v' + v.version;
        }
        add(tr, el('td', null, v.flexible ? 'yes' : 'no'));
        add(tr, el('td', null, v.headers));
        add(tr, el('td', null, v.first));
        add(tr, el('td', null, v.last));
        add(tr, el('td', null, v.status));
      });
    }
    data.frames.forEach(function (f) { new FrameViewer(f, app); });
  }

  function indexPage(data, app) {
    document.title = data.title;
    add(app, header(data.title, data.subtitle));
    add(app, el('p', 'intro', data.intro));
    var filter = add(app, el('input', 'filter'));
    filter.type = 'search';
    filter.placeholder = 'filter by name or key';
    filter.setAttribute('aria-label', 'filter APIs');
    var table = add(app, el('table', 'apis'));
    var head = add(add(table, el('thead')), el('tr'));
    ['key', 'API', 'request versions', 'response versions', 'flexible', 'removed', 'Kafka releases',
     'each version first stable in', 'notes'].forEach(function (h) { add(head, el('th', null, h)); });
    var body = add(table, el('tbody'));
    var rows = [];
    data.apis.forEach(function (a) {
      var tr = add(body, el('tr'));
      tr.setAttribute('data-key', String(a.key));
      add(tr, el('td', 'num', a.key));
      var name = add(tr, el('td', 'name'));
      var link = add(name, el('a', null, a.name));
      link.href = a.href;
      add(tr, el('td', null, a.request));
      add(tr, el('td', null, a.response));
      add(tr, el('td', null, a.flexible));
      add(tr, el('td', null, a.removed));
      add(tr, el('td', null, a.kafka));
      var firsts = add(tr, el('td', 'firsts'));
      a.releases.forEach(function (r, k) {
        if (k) add(firsts, el('span', 'sep', ' \u00b7 '));
        add(firsts, el('span', 'rel', 'v' + r[0] + ': ' + r[1]));
      });
      add(tr, el('td', 'notes', a.notes));
      rows.push([tr, (a.key + ' ' + a.name + ' ' + a.formerly).toLowerCase()]);
    });
    filter.addEventListener('input', function () {
      var q = filter.value.trim().toLowerCase();
      rows.forEach(function (r) { r[0].hidden = q !== '' && r[1].indexOf(q) < 0; });
    });
  }

  // ---- Conformance reports (tools/html/report.h).
  var BAD_OUTCOMES = {'fail': 1, 'unexpected pass': 1, 'not run': 1};
  var JSON_MAX_LINES = 3000;  // lines drawn per side of a comparison

  function countTable(cls, head, rows, outcomes, firstCounts) {
    var table = el('table', 'report-table ' + cls);
    var tr = add(add(table, el('thead')), el('tr'));
    head.concat(outcomes).forEach(function (h) { add(tr, el('th', null, h)); });
    var body = add(table, el('tbody'));
    rows.forEach(function (r) {
      var bad = false;
      outcomes.forEach(function (o, k) { if (BAD_OUTCOMES[o] && r[firstCounts + k] > 0) bad = true; });
      var row = add(body, el('tr', bad ? 'bad' : ''));
      for (var c = 0; c < r.length; c++) {
        var isCount = c >= firstCounts;
        var td = add(row, el('td', isCount || typeof r[c] === 'number' ? 'num' : null, r[c]));
        if (isCount) {
          var o = outcomes[c - firstCounts];
          td.setAttribute('data-outcome', o);
          if (r[c] > 0 && BAD_OUTCOMES[o]) td.classList.add('bad-count');
          if (r[c] === 0) td.classList.add('zero');
        }
      }
    });
    return table;
  }

  // One side of a comparison: the JSON pretty-printed, one element per line, each line
  // with its member's path (as the runner names it: "body.Topics[0].Name"); lines of a
  // differing member marked.
  function jsonPane(title, value, diffs) {
    var pane = el('div', 'json-pane');
    add(pane, el('h4', null, title));
    var box = add(pane, el('div', 'json'));
    var n = 0, cut = false;
    function line(depth, text, path, mark) {
      if (n >= JSON_MAX_LINES) { cut = true; return; }
      n++;
      var d = add(box, el('div', 'jl' + (mark ? ' diff' : '')));
      d.style.paddingLeft = (0.2 + 1.3 * depth) + 'em';
      d.textContent = text;
      if (path !== null) d.setAttribute('data-path', path);
    }
    function walk(key, v, path, depth, last) {
      var prefix = key === null ? '' : JSON.stringify(key) + ': ', comma = last ? '' : ',';
      var marked = diffs[path] === true;
      if (Array.isArray(v)) {
        if (!v.length) return line(depth, prefix + '[]' + comma, path, marked);
        line(depth, prefix + '[', path, marked);
        for (var i = 0; i < v.length && !cut; i++) walk(null, v[i], path + '[' + i + ']', depth + 1, i === v.length - 1);
        line(depth, ']' + comma, null, marked);
      } else if (v !== null && typeof v === 'object') {
        var keys = Object.keys(v);
        if (!keys.length) return line(depth, prefix + '{}' + comma, path, marked);
        line(depth, prefix + '{', path, marked);
        for (var k = 0; k < keys.length && !cut; k++) {
          walk(keys[k], v[keys[k]], path === '' ? keys[k] : path + '.' + keys[k], depth + 1, k === keys.length - 1);
        }
        line(depth, '}' + comma, null, marked);
      } else {
        line(depth, prefix + JSON.stringify(v) + comma, path, marked);
      }
    }
    walk(null, value, '', 0, true);
    if (cut) add(pane, el('p', 'note', 'only the first ' + JSON_MAX_LINES + ' lines are drawn'));
    return pane;
  }

  function compareBox(check) {
    var c = check.compare;
    var box = el('div', 'compare');
    var diffs = Object.create(null);
    c.diffs.forEach(function (p) { diffs[p] = true; });
    add(box, el('h3', null, check.check + ': expected vs the testee\u2019s answer' +
        (c.diffs.length ? ' (' + plural(c.diffs.length, 'difference', 'differences') + ' marked)' : '')));
    if (c.diffs.length) {
      var list = add(box, el('p', 'diff-list'));
      list.textContent = 'differs at: ' + c.diffs.slice(0, 12).join(', ') + (c.diffs.length > 12 ? ', \u2026' : '');
    }
    var sides = add(box, el('div', 'sides'));
    add(sides, jsonPane('expected (the vector)', c.expected, diffs)).classList.add('expected');
    add(sides, jsonPane('answered (the testee)', c.answered, diffs)).classList.add('answered');
    return box;
  }

  function failureBody(f, box, mode) {
    var facts = add(box, el('dl', 'error-facts failure-facts'));
    [['set', f.set], ['vector', f.file + ':' + f.line], ['API', f.api_name + ' (key ' + f.api_key + ')'],
     ['version', 'v' + f.version], ['direction', f.direction], ['expect', f.expect], ['outcome', f.outcome],
     ['mutation', f.mutation], ['expected failure', f.expected_reason]].forEach(function (kv) {
      if (kv[1] === '' || kv[1] === null || kv[1] === undefined) return;
      var d = add(facts, el('div'));
      add(d, el('dt', null, kv[0]));
      add(d, el('dd', 'fact-' + kv[0].replace(/ /g, '-'), kv[1]));
    });
    var table = add(box, el('table', 'checks'));
    var hr = add(add(table, el('thead')), el('tr'));
    var cols = mode === 'testee' ? ['operation', 'verdict', 'answer', 'why', 'the testee\u2019s error'] : ['check', 'message'];
    cols.forEach(function (h) { add(hr, el('th', null, h)); });
    var tb = add(table, el('tbody'));
    f.checks.forEach(function (c) {
      var tr = add(tb, el('tr', 'check-' + c.verdict.replace(/ /g, '-')));
      add(tr, el('td', 'check-name', c.check));
      if (mode === 'testee') {
        add(tr, el('td', 'check-verdict', c.verdict));
        add(tr, el('td', 'check-answer', c.answer));
      }
      add(tr, el('td', 'check-message', c.message));
      if (mode === 'testee') add(tr, el('td', 'check-error', c.error));
    });
    var cmd = add(box, el('p', 'command-line'));
    add(cmd, el('span', 'note', 'look: '));
    add(cmd, el('code', 'command', f.command));
    f.checks.forEach(function (c) { if (c.compare) add(box, compareBox(c)); });
    var markBox = null;
    if (f.mark) {
      markBox = add(box, el('p', 'mark-note'));
      add(markBox, el('strong', null, 'marked: '));
      var where = typeof f.mark.offset === 'number' ? 'byte ' + f.mark.offset + ' (0x' + hex4(f.mark.offset, 4) + ')' : '';
      if (f.mark.path) where += (where ? ', ' : '') + f.mark.path;
      add(markBox, el('span', 'mark-where', where));
      if (f.mark.why) add(markBox, el('span', 'mark-why', ' \u2014 ' + f.mark.why));
    }
    f.frame.mark = f.mark;
    var viewer = new FrameViewer(f.frame, box);
    if (viewer.markAt >= 0) {
      viewer.drawRows(Math.floor(viewer.markAt / 16) + 1);
      var go = add(markBox, el('button', 'mark-goto', 'show the marked byte'));
      go.type = 'button';
      go.addEventListener('click', function () { viewer.selectByte(viewer.markAt, true); });
    }
    return viewer;
  }

  function conformancePage(data, app) {
    document.title = data.title;
    add(app, header(data.title, data.subtitle));
    var verdict = add(app, el('p', 'verdict ' + (data.ok ? 'verdict-pass' : 'verdict-fail'), data.ok ? 'PASS' : 'FAIL'));
    verdict.setAttribute('data-ok', data.ok ? 'true' : 'false');
    var totals = [['vectors', data.vectors]];
    data.outcomes.forEach(function (o, k) { totals.push([o, data.totals[k]]); });
    var dl = add(app, summaryList(totals));
    dl.classList.add('report-totals');
    Array.prototype.forEach.call(dl.children, function (item, k) {
      item.setAttribute('data-outcome', totals[k][0]);
      if (k > 0 && BAD_OUTCOMES[totals[k][0]] && totals[k][1] > 0) item.classList.add('bad');
    });
    if (data.testee) {
      add(app, el('p', 'note testee-line', 'testee: ' + (data.testee.name || '?') + ' ' + (data.testee.version || '') +
          ' \u2014 operations: ' + (data.testee.operations.join(', ') || 'none') + ' \u2014 command: ' + data.testee.command));
    }
    if (data.expected_failures) add(app, el('p', 'note', 'expected failures: ' + data.expected_failures));
    [['errors', data.errors, 'report-errors'], ['testee faults', data.faults, 'report-faults'],
     ['warnings', data.warnings, 'report-warnings']].forEach(function (g) {
      if (!g[1] || !g[1].length) return;
      var box = add(app, el('div', 'report-list ' + g[2]));
      add(box, el('h3', null, g[0] + ' (' + g[1].length + ')'));
      var ul = add(box, el('ul'));
      g[1].forEach(function (t) { add(ul, el('li', null, t)); });
    });
    add(app, el('h2', null, 'per vector file'));
    add(app, countTable('report-sets', ['file', 'vectors'], data.sets, data.outcomes, 2));
    add(app, el('h2', null, 'per API and version'));
    add(app, el('p', 'note', 'Rows with a failure, an unexpected pass or a vector not run first.'));
    var apiBox = add(app, el('div', 'report-apis-box'));
    add(apiBox, countTable('report-apis', ['key', 'API', 'version', 'vectors'], data.apis, data.outcomes, 4));

    var fh = add(app, el('h2', 'failures-heading', 'failures and unexpected passes (' + data.failures_total + ')'));
    fh.id = 'failures';
    if (!data.failures_total) add(app, el('p', 'note', 'None.'));
    if (data.failures_more.length) {
      add(app, el('p', 'note failures-bound', data.failures.length + ' drawn in full (at most ' + data.max_failures +
          ' per page); the other ' + data.failures_more.length + ' are listed by id at the end.'));
    }
    data.failures.forEach(function (f, k) {
      var d = add(app, el('details', 'failure outcome-' + f.outcome.replace(/ /g, '-')));
      d.setAttribute('data-id', f.id);
      var sum = add(d, el('summary'));
      add(sum, el('span', 'failure-outcome', f.outcome));
      add(sum, el('span', 'failure-id', f.id));
      var first = f.checks.length ? f.checks[0].check + ': ' + f.checks[0].message : '';
      add(sum, el('span', 'failure-first', first));
      var body = add(d, el('div', 'failure-body'));
      var drawn = false;
      function draw() {
        if (drawn) return;
        drawn = true;
        failureBody(f, body, data.mode);
      }
      // Drawn when first opened: at the click (before the element opens, so that a
      // reader of the page finds the frame once the click is done) or by the keyboard.
      sum.addEventListener('click', draw);
      d.addEventListener('toggle', function () { if (d.open) draw(); });
      if (k === 0) { d.open = true; draw(); }
    });
    if (data.failures_more.length) {
      add(app, el('h3', 'more-heading', 'listed by id only (' + data.failures_more.length + ')'));
      var t = add(app, countTable('failures-more', ['id', 'outcome', 'vector', 'first message'], data.failures_more, [], 4));
      t.classList.remove('report-table');
    }
  }

  var data;
  try {
    data = JSON.parse(document.getElementById('kwire-data').textContent);
  } catch (e) {
    document.getElementById('app').textContent = 'This page\u2019s data does not read: ' + e.message;
    return;
  }
  var app = document.getElementById('app');
  if (data.page === 'explain') explainPage(data, app);
  else if (data.page === 'api') apiPage(data, app);
  else if (data.page === 'index') indexPage(data, app);
  else if (data.page === 'conformance') conformancePage(data, app);
  else app.textContent = 'Unknown page kind.';
  // Pages are also read by scripts (tools/html/browser_test.py): say when drawn.
  document.documentElement.setAttribute('data-ready', 'true');
})();
