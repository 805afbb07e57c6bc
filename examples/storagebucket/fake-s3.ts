// A tiny stand-in for S3-compatible storage, for the tests and for `npm start`: path-style
// HeadBucket (`HEAD /<bucket>`: 200, 403 for a denied bucket, 404), CreateBucket (`PUT /<bucket>`)
// and DeleteBucket (`DELETE /<bucket>`), no authentication. `down` drops every connection
// unanswered, as an unreachable endpoint would.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export class FakeS3 {
  /** Buckets that exist; `denied` ones answer 403 to HeadBucket. Others answer 404. */
  readonly buckets = new Map<string, "ok" | "denied">();
  down = false;
  /** HeadBucket requests received (answered or not). */
  heads = 0;
  readonly #server: Server = createServer((req, res) => {
    if (req.method === "HEAD") this.heads++;
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const bucket = decodeURIComponent((req.url ?? "/").split("?")[0].slice(1));
    const state = this.buckets.get(bucket);
    switch (req.method) {
      case "HEAD":
        res.writeHead(state === "ok" ? 200 : state === "denied" ? 403 : 404).end();
        return;
      case "PUT":
        if (!state) this.buckets.set(bucket, "ok");
        res.writeHead(state ? 409 : 200).end();
        return;
      case "DELETE":
        this.buckets.delete(bucket);
        res.writeHead(state ? 204 : 404).end();
        return;
      default:
        res.writeHead(405).end();
    }
  });

  /** Listens on `port` (0: a free one) of 127.0.0.1; resolves with the endpoint URL. */
  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, "127.0.0.1", resolve);
    });
    return this.endpoint;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
