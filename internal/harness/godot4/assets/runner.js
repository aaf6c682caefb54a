// Runs the Godot 4 web build headless and sends everything it prints to the Go server that
// served this page (package godot4). Messages are POSTed to "out" one after another, in order,
// as JSON: {seq, lines: [{s: stream, t: text}, ...], started?, done?, exit?, fatal?}; stream 0 is
// stdout, 1 is stderr. "done" carries the status word printed after the end marker.
'use strict';
(function () {
	let seq = 0;
	let buf = [];
	let size = 0;
	let queue = Promise.resolve();
	let finished = false;
	let marker = null;

	function post(extra) {
		const msg = Object.assign({ seq: seq++, lines: buf }, extra);
		buf = [];
		size = 0;
		const body = JSON.stringify(msg);
		queue = queue.then(function () {
			return fetch('out', { method: 'POST', body: body, headers: { 'Content-Type': 'application/json' } });
		}).catch(function () { /* the server is gone: the run is over */ });
	}

	function add(stream, args) {
		if (finished) {
			return;
		}
		const text = Array.prototype.map.call(args, String).join(' ');
		if (stream === 0 && marker !== null && text.startsWith(marker)) {
			finished = true;
			post({ done: text.slice(marker.length).trim() });
			return;
		}
		buf.push({ s: stream, t: text });
		size += text.length + 16;
		if (size >= (1 << 20)) {
			post({});
		}
	}

	setInterval(function () {
		if (!finished && buf.length > 0) {
			post({});
		}
	}, 250);
	window.addEventListener('error', function (e) {
		post({ fatal: String(e.error && e.error.stack || e.error || e.message) });
	});
	window.addEventListener('unhandledrejection', function (e) {
		post({ fatal: 'unhandled rejection: ' + String(e.reason && e.reason.stack || e.reason) });
	});

	async function main() {
		const cfg = await (await fetch('config.json')).json();
		marker = cfg.marker;
		const engine = new Engine({
			executable: 'index',
			args: ['--headless'],
			canvas: document.getElementById('canvas'),
			canvasResizePolicy: 0,
			persistentPaths: [],
			onPrint: function () { add(0, arguments); },
			onPrintError: function () { add(1, arguments); },
			onExit: function (code) { post({ exit: code }); },
		});
		await engine.init('index');
		for (const f of cfg.files) {
			const r = await fetch('fs/' + f.split('/').map(encodeURIComponent).join('/'));
			if (!r.ok) {
				throw new Error('fetching ' + f + ': ' + r.status);
			}
			engine.copyToFS('/' + f, await r.arrayBuffer());
		}
		await engine.start();
		post({ started: true });
	}

	main().catch(function (e) {
		post({ fatal: String(e && e.stack || e) });
	});
})();
