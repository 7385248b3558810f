// imghost web app client script (a hashed static asset, see scripts/build-assets.mjs; pages have a strict CSP, no inline scripts).
// Copy buttons everywhere; on the upload page: picker + drag and drop + paste, per-file progress,
// direct flow below 5 MB, multipart (parallel parts, each retried) above.
(function () {
  "use strict";
  var script = document.currentScript;
  var DIRECT_MAX = 5 * 1024 * 1024;
  var PART_SIZE = 5 * 1024 * 1024;
  var PARALLEL = 3;
  var RETRIES = 3;

  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-copy]");
    if (!btn) return;
    var target = btn.getAttribute("data-copy");
    var el = target.charAt(0) === "#" ? document.querySelector(target) : document.getElementById(target);
    var text = btn.getAttribute("data-copy-text") || (el ? (el.value !== undefined ? el.value : el.textContent) : "");
    var label = btn.textContent;
    var done = function () {
      btn.textContent = "Copied";
      setTimeout(function () { btn.textContent = label; }, 1500);
    };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () { if (el && el.select) { el.select(); document.execCommand("copy"); done(); } });
    else if (el && el.select) { el.select(); document.execCommand("copy"); done(); }
  });

  // The navigation's Menu (a <details> below 52rem): opening needs no script; Escape closes it (giving the focus
  // back to its button when it was inside), and so does a tap outside it.
  var menu = document.querySelector("nav.main details.menu");
  if (menu) {
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape" || !menu.open) return;
      var inside = menu.contains(document.activeElement);
      menu.open = false;
      if (inside) menu.querySelector("summary").focus();
    });
    document.addEventListener("click", function (e) {
      if (menu.open && !menu.contains(e.target)) menu.open = false;
    });
  }

  // My files: the bulk bar says how many cards are selected, and marks them (the stylesheet shows its album picker).
  var bulk = document.getElementById("bulk");
  if (bulk) {
    var count = document.getElementById("bulk-count");
    var sync = function () {
      var boxes = document.querySelectorAll('input[name="ids"][form="bulk"]');
      var n = 0;
      boxes.forEach(function (b) {
        if (b.checked) n++;
        var card = b.closest(".card");
        if (card) card.classList.toggle("picked", b.checked);
      });
      count.textContent = n === 0 ? "Select files to act on several at once" : n === 1 ? "1 file selected" : n + " files selected";
    };
    document.addEventListener("change", function (e) { if (e.target.name === "ids") sync(); });
    sync();
  }

  // Placeholders while images load: the dominant colour at once, then the ThumbHash decoded by the thumbhash
  // library (a hashed asset named by this script's data-thumbhash, fetched only when a page has one). Both go
  // when the image arrives. Set through the CSSOM: the CSP allows no inline style attributes.
  var loading = Array.prototype.slice.call(document.querySelectorAll("img[data-color], img[data-placeholder]")).filter(function (im) {
    return !(im.complete && im.naturalWidth > 0);
  });
  loading.forEach(function (im) {
    if (im.getAttribute("data-color")) im.style.backgroundColor = im.getAttribute("data-color");
    im.addEventListener("load", function () { im.style.backgroundImage = ""; im.style.backgroundColor = ""; im.classList.remove("painted"); }, { once: true });
  });
  var hashed = loading.filter(function (im) { return im.getAttribute("data-placeholder"); });
  var thumbhashUrl = script && script.getAttribute("data-thumbhash");
  if (hashed.length && thumbhashUrl) {
    import(thumbhashUrl).then(function (thumbhash) {
      hashed.forEach(function (im) {
        if (im.complete && im.naturalWidth > 0) return;
        var bin = atob(im.getAttribute("data-placeholder"));
        var bytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        im.style.backgroundImage = "url(" + thumbhash.thumbHashToDataURL(bytes) + ")";
        im.classList.add("painted");
      });
    }).catch(function () { /* the colour stays: a placeholder is never worth an error */ });
  }

  // Public album: a keyboard lightbox (arrows, Escape) over the gallery's links.
  var gallery = document.querySelector(".gallery[data-lightbox]");
  if (gallery && window.HTMLDialogElement) {
    var links = Array.prototype.slice.call(gallery.querySelectorAll("a[data-full]"));
    var box = document.getElementById("lightbox");
    var img = box.querySelector("img");
    var caption = box.querySelector(".caption");
    var open = box.querySelector(".open");
    var at = 0;
    var show = function (i) {
      at = (i + links.length) % links.length;
      var a = links[at];
      img.src = a.getAttribute("data-full");
      img.alt = a.getAttribute("data-title") || "";
      caption.textContent = (a.getAttribute("data-title") || "") + " (" + (at + 1) + " of " + links.length + ")";
      open.href = a.href;
    };
    links.forEach(function (a, i) {
      a.addEventListener("click", function (e) {
        if (e.ctrlKey || e.metaKey || e.shiftKey) return;
        e.preventDefault();
        show(i);
        box.showModal();
      });
    });
    box.querySelector(".prev").addEventListener("click", function () { show(at - 1); });
    box.querySelector(".next").addEventListener("click", function () { show(at + 1); });
    box.querySelector(".close").addEventListener("click", function () { box.close(); });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowLeft") { e.preventDefault(); show(at - 1); }
      if (e.key === "ArrowRight") { e.preventDefault(); show(at + 1); }
    });
    box.addEventListener("close", function () { if (links[at]) links[at].focus(); });
  }

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
      var preview = el("img", { class: "preview", alt: "Preview of " + f.name });
      preview.src = URL.createObjectURL(f);
      li.appendChild(preview);
      li.appendChild(el("span", { class: "name" }, f.name + " (" + fmt(f.size) + ")"));
      var bar = el("progress", { max: "100", value: "0", "aria-label": "Upload progress of " + f.name });
      li.appendChild(bar);
      var status = el("span", { class: "status", role: "status" }, "waiting");
      li.appendChild(status);
      queueEl.appendChild(li);
      pending.push({ file: f, li: li, bar: bar, status: status });
    }
  }
  var picked = document.getElementById("picked");
  function countPicked() {
    if (picked) picked.textContent = pending.length === 0 ? "" : pending.length === 1 ? "1 image ready" : pending.length + " images ready";
  }
  input.addEventListener("change", function () { addFiles(input.files); countPicked(); });
  drop.addEventListener("click", function (e) { if (e.target === drop || e.target.tagName === "P") input.click(); });
  ["dragenter", "dragover"].forEach(function (t) {
    drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (t) {
    drop.addEventListener(t, function () { drop.classList.remove("over"); });
  });
  drop.addEventListener("drop", function (e) { e.preventDefault(); addFiles(e.dataTransfer.files); countPicked(); });
  document.addEventListener("paste", function (e) {
    var files = [];
    var items = (e.clipboardData && e.clipboardData.items) || [];
    for (var i = 0; i < items.length; i++) if (items[i].kind === "file") files.push(items[i].getAsFile());
    if (files.length) { addFiles(files); countPicked(); }
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
    var name = job.file.name.replace(/[\[\]"<>]/g, "");
    [["Page", location.origin + "/f/" + fin.fileId], ["Direct", fin.url], ["Markdown", "![" + name + "](" + fin.url + ")"], ["BBCode", "[img]" + fin.url + "[/img]"]].forEach(function (pair) {
      var id = "link-" + ++copyId;
      var wrap = el("div", { class: "link" });
      wrap.appendChild(el("label", { for: id }, pair[0]));
      var inp = el("input", { id: id, readonly: "", value: pair[1] });
      wrap.appendChild(inp);
      var b = el("button", { type: "button", class: "small", "data-copy": "#" + id, "aria-label": "Copy " + pair[0] + " of " + job.file.name }, "Copy");
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
    countPicked();
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
