// The web app client script, served as /assets/app.js (a module string so the bundler needs no text-loader rule).
export const APP_JS = String.raw`
// imghost web app client script (served as /assets/app.js; pages have a strict CSP, no inline scripts).
// Copy buttons everywhere; on the upload page: picker + drag and drop + paste, per-file progress,
// direct flow below 5 MB, multipart (parallel parts, each retried) above.
(function () {
  "use strict";
  var DIRECT_MAX = 5 * 1024 * 1024;
  var PART_SIZE = 5 * 1024 * 1024;
  var PARALLEL = 3;
  var RETRIES = 3;

  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-copy]");
    if (!btn) return;
    var el = document.querySelector(btn.getAttribute("data-copy"));
    var text = el ? (el.value !== undefined ? el.value : el.textContent) : "";
    navigator.clipboard.writeText(text).then(function () {
      btn.textContent = "Copied";
      setTimeout(function () { btn.textContent = "Copy"; }, 1500);
    });
  });

  var form = document.getElementById("upload-form");
  if (!form) return;
  var input = document.getElementById("files");
  var drop = document.getElementById("drop");
  var queueEl = document.getElementById("queue");
  var limitsEl = document.getElementById("limits-msg");
  var pending = [];
  var copyId = 0;

  function el(tag, attrs, text) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) n.setAttribute(k, attrs[k]);
    if (text !== undefined) n.textContent = text;
    return n;
  }
  function fmt(n) {
    // Decimal units, like the plan limits (20 MB = 20 000 000 bytes).
    if (n < 1000) return n + " B";
    var u = ["KB", "MB", "GB", "TB"], i = -1;
    do { n /= 1000; i++; } while (n >= 1000 && i < u.length - 1);
    return n.toFixed(n < 10 ? 1 : 0) + " " + u[i];
  }

  function addFiles(list) {
    for (var i = 0; i < list.length; i++) {
      var f = list[i];
      if (!f || !f.type || f.type.indexOf("image/") !== 0) continue;
      var li = el("li", { class: "item" });
      li.appendChild(el("span", { class: "name" }, f.name + " (" + fmt(f.size) + ")"));
      var bar = el("progress", { max: "100", value: "0", "aria-label": "Upload progress of " + f.name });
      li.appendChild(bar);
      var status = el("span", { class: "status", role: "status" }, "waiting");
      li.appendChild(status);
      queueEl.appendChild(li);
      pending.push({ file: f, li: li, bar: bar, status: status });
    }
  }
  input.addEventListener("change", function () { addFiles(input.files); });
  ["dragenter", "dragover"].forEach(function (t) {
    drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (t) {
    drop.addEventListener(t, function () { drop.classList.remove("over"); });
  });
  drop.addEventListener("drop", function (e) { e.preventDefault(); addFiles(e.dataTransfer.files); });
  drop.addEventListener("keydown", function (e) {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); }
  });
  document.addEventListener("paste", function (e) {
    var files = [];
    var items = (e.clipboardData && e.clipboardData.items) || [];
    for (var i = 0; i < items.length; i++) if (items[i].kind === "file") files.push(items[i].getAsFile());
    if (files.length) addFiles(files);
  });

  var token = null;
  function getToken() {
    return fetch("/app/token", { headers: { "X-Requested-With": "imghost" }, credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("Your session ended: log in again.");
      return r.json();
    }).then(function (j) { token = j.access_token; return token; });
  }

  function ApiError(status, body) {
    this.status = status;
    this.body = body || {};
    this.message = (body && body.message) || "Request failed (" + status + ")";
  }

  function api(method, url, body) {
    return fetch(url, {
      method: method,
      headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) throw new ApiError(r.status, j);
        return j;
      });
    });
  }

  /** PUT bytes with XMLHttpRequest so upload progress is observable. */
  function put(url, blob, mime, onProgress) {
    return new Promise(function (resolve, reject) {
      var x = new XMLHttpRequest();
      x.open("PUT", url);
      x.setRequestHeader("Authorization", "Bearer " + token);
      x.setRequestHeader("Content-Type", mime);
      x.upload.onprogress = function (e) { if (e.lengthComputable) onProgress(e.loaded); };
      x.onload = function () {
        var j = {};
        try { j = JSON.parse(x.responseText); } catch (e) {}
        if (x.status >= 200 && x.status < 300) resolve({ body: j, etag: x.getResponseHeader("ETag") });
        else reject(new ApiError(x.status, j));
      };
      x.onerror = function () { reject(new ApiError(0, { message: "Network error" })); };
      x.send(blob);
    });
  }

  function sha256(file) {
    return file.arrayBuffer().then(function (buf) { return crypto.subtle.digest("SHA-256", buf); }).then(function (d) {
      return Array.from(new Uint8Array(d)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
    });
  }

  function dimensions(file) {
    if (!window.createImageBitmap) return Promise.resolve({});
    return createImageBitmap(file).then(function (b) {
      var d = { width: b.width, height: b.height };
      b.close();
      return d;
    }).catch(function () { return {}; });
  }

  function meta() {
    var m = {};
    var title = form.title.value.trim(), desc = form.description.value.trim();
    if (title) m.title = title;
    if (desc) m.description = desc;
    m.visibility = form.visibility.value;
    if (form.expiry.value) m.expiresIn = Number(form.expiry.value);
    return m;
  }
  function tags() {
    return form.tags.value.split(",").map(function (t) { return t.trim(); }).filter(Boolean);
  }

  function direct(job, m) {
    var f = job.file;
    return sha256(f).then(function (hash) {
      job.status.textContent = "starting";
      return api("POST", "/api/v1/upload/presign", Object.assign({ filename: f.name, mime: f.type, bytes: f.size, sha256: hash }, m));
    }).then(function (p) {
      job.status.textContent = "uploading";
      return put(p.uploadUrl, f, f.type, function (n) { job.bar.value = Math.round((n / f.size) * 100); })
        .then(function (r) { return { p: p, etag: r.etag || "" }; });
    });
  }

  function multipart(job, m) {
    var f = job.file;
    return api("POST", "/api/v1/upload/multipart/init", Object.assign({ filename: f.name, mime: f.type, totalBytes: f.size, partSize: PART_SIZE }, m))
      .then(function (init) {
        var loaded = {};
        var done = [];
        var next = 0;
        function progress() {
          var sum = 0;
          for (var k in loaded) sum += loaded[k];
          job.bar.value = Math.round((sum / f.size) * 100);
        }
        function sendPart(part, attempt) {
          var start = (part.partNumber - 1) * init.partSize;
          var blob = f.slice(start, Math.min(start + init.partSize, f.size));
          return put(part.url, blob, "application/octet-stream", function (n) { loaded[part.partNumber] = n; progress(); })
            .then(function (r) { done.push({ partNumber: part.partNumber, etag: r.body.etag || r.etag }); })
            .catch(function (err) {
              // A failed part is sent again (bounded); the parts already stored are kept.
              if (attempt >= RETRIES || (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429)) throw err;
              loaded[part.partNumber] = 0;
              job.status.textContent = "retrying part " + part.partNumber;
              return new Promise(function (r) { setTimeout(r, 500 * attempt); }).then(function () { return sendPart(part, attempt + 1); });
            });
        }
        function worker() {
          if (next >= init.parts.length) return Promise.resolve();
          var part = init.parts[next++];
          return sendPart(part, 1).then(worker);
        }
        job.status.textContent = "uploading " + init.partCount + " parts";
        var workers = [];
        for (var i = 0; i < Math.min(PARALLEL, init.parts.length); i++) workers.push(worker());
        return Promise.all(workers).then(function () {
          done.sort(function (a, b) { return a.partNumber - b.partNumber; });
          job.status.textContent = "assembling";
          return api("POST", "/api/v1/upload/multipart/complete", { uploadId: init.uploadId, fileId: init.fileId, storeKey: init.storeKey, parts: done });
        }).then(function (c) { return { p: init, etag: c.storeEtag }; });
      });
  }

  function showResult(job, fin) {
    job.bar.value = 100;
    job.status.textContent = "done";
    var links = el("div", { class: "links" });
    [["Page", location.origin + "/f/" + fin.fileId], ["Direct", fin.url]].forEach(function (pair) {
      var id = "link-" + ++copyId;
      var wrap = el("span", { class: "link" });
      wrap.appendChild(el("label", { for: id }, pair[0]));
      var inp = el("input", { id: id, readonly: "", value: pair[1] });
      wrap.appendChild(inp);
      var b = el("button", { type: "button", "data-copy": "#" + id }, "Copy");
      wrap.appendChild(b);
      links.appendChild(wrap);
    });
    job.li.appendChild(links);
    job.li.appendChild(el("p", { class: "muted analysis" }, analysisSummary(fin)));
    (fin.duplicates || []).forEach(function (d) {
      var p = el("p", { class: "muted" }, d.match === "exact" ? "Identical to " : d.signal === "embedding" ? "Similar (cropped or turned) to " : "Similar to (distance " + d.distance + ") ");
      p.appendChild(el("a", { href: "/f/" + d.fileId }, d.fileId));
      job.li.appendChild(p);
    });
  }

  // The same words as the no-JavaScript results page (src/pages/app/upload-result.tsx).
  function analysisSummary(fin) {
    if (fin.analysis === "failed") return "Not analysed: " + (fin.analysisError || "the image could not be read") + ".";
    if (fin.analysis !== "done") return "Still being analysed: its page shows the result in a moment.";
    var parts = ["Analysed: " + fin.width + " × " + fin.height];
    if (fin.nsfwScore !== null) parts.push("NSFW score " + fin.nsfwScore.toFixed(2) + (fin.ageRestricted ? " (age-restricted)" : ""));
    var n = (fin.duplicates || []).length;
    parts.push(n === 0 ? "no duplicates among your files" : n === 1 ? "1 duplicate among your files" : n + " duplicates among your files");
    return parts.join(" · ") + ".";
  }

  function explain(job, err) {
    job.li.classList.add("failed");
    job.status.textContent = "failed: " + err.message;
    if ([413, 402, 415, 429].indexOf(err.status) >= 0) {
      api("GET", "/api/v1/account/limits").then(function (l) {
        var why = {
          413: "This file is larger than your plan allows.",
          402: "Your storage quota is full.",
          415: "This file type is not accepted (JPEG, PNG, GIF, WebP, AVIF, BMP).",
          429: "Too many uploads right now: wait a little and retry.",
        }[err.status];
        limitsEl.textContent = why + " Plan " + l.plan + ": files up to " + fmt(l.maxFileBytes) + "; " + fmt(l.quota.remaining) + " of " + fmt(l.quota.total) + " storage left" +
          (l.rateLimits && l.rateLimits.uploads && l.rateLimits.uploads.remaining !== null ? "; " + l.rateLimits.uploads.remaining + " uploads left in this window." : ".");
      }).catch(function () {});
    }
  }

  function run(job, m, t) {
    var flow = job.file.size < DIRECT_MAX ? direct : multipart;
    return flow(job, m).then(function (r) {
      return dimensions(job.file).then(function (d) {
        job.status.textContent = "finalizing";
        return api("POST", "/api/v1/upload/finalize", Object.assign({ uploadId: r.p.uploadId, fileId: r.p.fileId, storeKey: r.p.storeKey, storeEtag: r.etag }, d));
      });
    }).then(function (fin) {
      return (t.length ? api("PATCH", "/api/v1/files/" + fin.fileId, { tags: t }) : Promise.resolve()).then(function () { showResult(job, fin); });
    }).catch(function (err) { explain(job, err instanceof ApiError ? err : new ApiError(0, { message: String(err && err.message || err) })); });
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var jobs = pending.splice(0);
    if (!jobs.length) { limitsEl.textContent = "Choose, drop or paste some images first."; return; }
    limitsEl.textContent = "";
    var m = meta(), t = tags();
    getToken().then(function () {
      // Two files at a time; each large file also sends its parts in parallel.
      var i = 0;
      function lane() { return i < jobs.length ? run(jobs[i++], m, t).then(lane) : Promise.resolve(); }
      return Promise.all([lane(), lane()]);
    }).catch(function (err) { limitsEl.textContent = err.message; });
  });
})();
`;

export const APP_CSS = `
.appnav { display: flex; flex-wrap: wrap; gap: .75rem 1rem; align-items: center; margin-bottom: 1rem; }
form.inline { display: inline; }
.stack { display: grid; gap: .4rem; max-width: 32rem; }
.stack label:has(input[type=checkbox]) { display: flex; gap: .4rem; align-items: center; }
input, select, textarea, button { font: inherit; padding: .35rem .5rem; }
button { cursor: pointer; }
button.danger { color: #fff; background: #b42318; border: 1px solid #b42318; border-radius: 4px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.notice { padding: .5rem .75rem; border-radius: 6px; border: 1px solid var(--line); }
.notice.error { border-color: #b42318; }
.notice.ok { border-color: #067647; }
.drop { border: 2px dashed var(--line); border-radius: 8px; padding: 1rem; }
.drop.over { border-color: var(--accent); }
.queue { list-style: none; padding: 0; }
.queue .item { display: grid; gap: .25rem; padding: .5rem 0; border-bottom: 1px solid var(--line); }
.queue progress { width: 100%; }
.queue .failed .status { color: #b42318; }
.links { display: grid; gap: .25rem; }
.links .link { display: flex; gap: .4rem; align-items: center; }
.links input { flex: 1; min-width: 0; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: 1rem; }
.grid { list-style: none; padding: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); }
.card { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.card .thumb { display: flex; aspect-ratio: 1; align-items: center; justify-content: center; background: var(--line); }
.card img { width: 100%; height: 100%; object-fit: cover; }
.card.restricted img { filter: blur(18px); }
.card.restricted .thumb:hover img, .card.restricted .thumb:focus img { filter: blur(6px); }
.badge { font-size: .8rem; color: #b42318; }
.card .meta { display: grid; padding: .5rem; gap: .15rem; word-break: break-word; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
.usage dt { font-weight: 600; }
label.pick { display: block; }
fieldset { border: 1px solid var(--line); border-radius: 6px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
table.keys { display: block; overflow-x: auto; }
@media (max-width: 40rem) { main { padding: .75rem; } .stack { max-width: none; } }
`;
