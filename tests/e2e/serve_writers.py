#!/usr/bin/env python3
"""Cross-process soak of `occtune serve`: the service under steady load while other processes
write the store it serves (tune-like writers through the Store API, and `occtune import`), one
after the other, each exiting before the next starts. Every answer must be 200 and fresh: once
a writer has exited, the very next requests see what it wrote.

This is the scenario of issue #16's first defect: a plain open()/close() of the database file in
the service process dropped its POSIX locks, so the second writer to exit checkpointed and
deleted the WAL under the service, which then answered 503 to everything.

  serve_writers.py OCCTUNE SEED [SECONDS]   (default: $OCCTUNE_SOAK_SECONDS or 120)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


def uuid_of(index):
    # The UUIDs tests/tools/seed_store.cpp gives device number `index`.
    return "GPU-%08x-0000-4000-8000-%012x" % (0x5EED0000 + index, index)


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def main():
    occtune, seed = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3] if len(sys.argv) > 3 else os.environ.get("OCCTUNE_SOAK_SECONDS", 120))
    tmp = tempfile.mkdtemp(prefix="occtune-serve-writers-")
    db = os.path.join(tmp, "served.db")
    subprocess.run([seed, db, "2", "4", "0"], check=True, stdout=subprocess.DEVNULL)

    log = open(os.path.join(tmp, "serve.log"), "w+")
    server = subprocess.Popen([occtune, "serve", "--db", db, "--port", "0", "--threads", "8"],
                              stderr=log, stdout=subprocess.DEVNULL)
    try:
        port = None
        for _ in range(200):
            log.seek(0)
            m = re.search(r"listening on port (\d+)", log.read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        if port is None:
            log.seek(0)
            sys.exit("the service did not start:\n" + log.read())
        base = "http://127.0.0.1:%d" % port

        # Load: four clients asking /v1/devices and /v1/best as fast as they can.
        stop = threading.Event()
        lock = threading.Lock()
        tally = {"requests": 0, "bad": []}

        def client(n):
            while not stop.is_set():
                url = (base + "/v1/devices") if n % 2 else (
                    base + "/v1/best?device=%s&kernel=tiled_dynamic&m=256&n=256&k=256" % uuid_of(0))
                status, body = get(url)
                with lock:
                    tally["requests"] += 1
                    if status != 200 and len(tally["bad"]) < 20:
                        tally["bad"].append((url, status, body[:300]))

        clients = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(4)]
        for c in clients:
            c.start()

        # Writers, one process after another, until the time is up: each adds two new devices,
        # alternately through the Store API (occtune_seed) and through `occtune import`.
        writes, next_index, stale = 0, 2, []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline or writes < 4:
            if writes % 2 == 0:
                subprocess.run([seed, db, "2", "3", str(next_index)], check=True,
                               stdout=subprocess.DEVNULL)
            else:
                other = os.path.join(tmp, "other-%d.db" % writes)
                export = os.path.join(tmp, "export-%d.json" % writes)
                subprocess.run([seed, other, "2", "3", str(next_index)], check=True,
                               stdout=subprocess.DEVNULL)
                subprocess.run([occtune, "export", "--db", other, "--out", export], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                subprocess.run([occtune, "import", export, "--db", db], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            writes += 1
            expected = {uuid_of(i) for i in range(next_index)} | {uuid_of(next_index), uuid_of(next_index + 1)}
            next_index += 2
            # Fresh: the first request after the writer exited already lists its devices.
            status, body = get(base + "/v1/devices")
            if status != 200:
                stale.append("write %d: /v1/devices answered %d: %s" % (writes, status, body[:300]))
                break
            seen = {d["uuid"] for d in json.loads(body)["devices"]}
            if not expected <= seen:
                stale.append("write %d: /v1/devices lacks %s" % (writes, sorted(expected - seen)))
            status, _ = get(base + "/v1/best?device=%s&kernel=tiled_dynamic&m=256&n=256&k=256"
                            % uuid_of(next_index - 1))
            if status != 200:
                stale.append("write %d: /v1/best of the new device answered %d" % (writes, status))
            time.sleep(0.2)

        stop.set()
        for c in clients:
            c.join(timeout=15)
        print("%d writer processes, %d requests under load, %d not 200, %d stale"
              % (writes, tally["requests"], len(tally["bad"]), len(stale)))
        problems = ["%s -> %d %r" % b for b in tally["bad"]] + stale
        if problems or tally["requests"] < 100:
            log.seek(0)
            sys.exit("\n".join(problems[:20]) + "\n--- service log (tail) ---\n" + log.read()[-3000:])
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
