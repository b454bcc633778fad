// Tests of the built client (npm run build first). The paging test runs
// against a gateway when EXERCISEDB_BASE_URL and EXERCISEDB_KEY are set
// (cmd/gateway's TestTypeScriptClientPagesProPlan sets them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, ApiError, rateWaitMs } from "../dist/index.js";

function page(ids, next) {
  return {
    success: true,
    meta: { total: 9, hasNextPage: next !== null, hasPreviousPage: false, nextCursor: next, previousCursor: null },
    data: ids.map((id) => ({ exerciseId: id })),
  };
}

function json(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

test("429 and 503 are retried after Retry-After, then the walk goes on", async () => {
  const answers = [
    json(429, { error: { code: "TOO_MANY_REQUESTS", message: "slow down", requestId: "req_a" } }, { "Retry-After": "2" }),
    json(200, page(["a", "b"], "b")),
    json(503, { error: { code: "SERVICE_UNAVAILABLE", message: "down", requestId: "req_b" } }, { "Retry-After": "5" }),
    json(200, page(["c"], null)),
  ];
  const sent = [];
  const waits = [];
  const c = new Client({
    baseUrl: "http://gateway.test/",
    key: "k",
    host: "exercisedb.example.com",
    fetch: async (url, init) => {
      sent.push([String(url), init.headers["X-Gateway-Key"], init.headers["X-Gateway-Host"]]);
      return answers.shift();
    },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  const ids = [];
  for await (const x of c.exercises({ limit: 2, bodyParts: ["chest", "back"] })) ids.push(x.exerciseId);
  assert.deepEqual(ids, ["a", "b", "c"]);
  assert.deepEqual(sent.map((s) => s[0]), [
    "http://gateway.test/api/v1/exercises?limit=2&bodyParts=chest%2Cback",
    "http://gateway.test/api/v1/exercises?limit=2&bodyParts=chest%2Cback",
    "http://gateway.test/api/v1/exercises?limit=2&bodyParts=chest%2Cback&after=b",
    "http://gateway.test/api/v1/exercises?limit=2&bodyParts=chest%2Cback&after=b",
  ]);
  assert.deepEqual(sent[0].slice(1), ["k", "exercisedb.example.com"]);
  assert.equal(waits.length, 2);
  assert.ok(waits[0] >= 2000 && waits[0] < 2125, `first wait ${waits[0]}`);
  assert.ok(waits[1] >= 5000 && waits[1] < 5250, `second wait ${waits[1]}`);
  assert.deepEqual(c.stats, { requests: 4, retries: 2 });
});

test("a refusal beyond the attempts, or with a Retry-After beyond maxWaitMs, is an ApiError", async () => {
  for (const [retryAfter, requests] of [["1", 2], ["7200", 1]]) {
    let n = 0;
    const c = new Client({
      baseUrl: "http://gateway.test",
      key: "k",
      retry: { attempts: 2, backoffMs: 100, maxBackoffMs: 1000, maxWaitMs: 60000 },
      fetch: async () => {
        n++;
        return json(429, { error: { code: "TOO_MANY_REQUESTS", message: "quota", requestId: "req_q" } }, { "Retry-After": retryAfter });
      },
      sleep: async () => {},
    });
    await assert.rejects(c.list({}), (e) => e instanceof ApiError && e.status === 429 && e.code === "TOO_MANY_REQUESTS" && e.requestId === "req_q");
    assert.equal(n, requests, `Retry-After ${retryAfter}`);
  }
});

test("pacing waits the rate policy's interval when nothing remains", async () => {
  const h = new Headers({ RateLimit: '"rate";r=0;t=1, "quota";r=5;t=9', "RateLimit-Policy": '"rate";q=20;w=1, "quota";q=9;w=86400' });
  assert.equal(rateWaitMs(h), 50);
  assert.equal(rateWaitMs(new Headers({ RateLimit: '"rate";r=3;t=1', "RateLimit-Policy": '"rate";q=20;w=1' })), 0);
  assert.equal(rateWaitMs(new Headers({ RateLimit: '"quota";r=0;t=1', "RateLimit-Policy": '"quota";q=20;w=1' })), 0);
  assert.equal(rateWaitMs(new Headers()), 0);
});

test("pages a whole listing of a real gateway", { skip: !process.env.EXERCISEDB_BASE_URL && "EXERCISEDB_BASE_URL is not set" }, async () => {
  const c = new Client({ baseUrl: process.env.EXERCISEDB_BASE_URL, key: process.env.EXERCISEDB_KEY, host: process.env.EXERCISEDB_HOST });
  const began = Date.now();
  const seen = new Set();
  for await (const x of c.exercises({ limit: 25 })) seen.add(x.exerciseId);
  const want = Number(process.env.EXERCISEDB_WANT_RECORDS);
  assert.equal(seen.size, want);
  console.log(`paged ${seen.size} records in ${Date.now() - began} ms: ${c.stats.requests} requests, ${c.stats.retries} retried`);
});
