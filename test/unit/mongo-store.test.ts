/**
 * The MongoDB store without a MongoDB server (none can run on this machine; see docs/operations.md, "MongoDB"):
 * what the driver is asked for each Store call, the client's options for the deployment URIs, the
 * driver's duplicate-key error, and the document encoding. test/unit/store-contract.test.ts runs
 * the same Store cases on NeDB always and on MongoDB when MONGO_URI names a server.
 */
import { BSON, MongoClient, MongoServerError, MongoServerSelectionError } from "mongodb";
import { findOptions, indexArgs, isMongoDuplicateKey, MONGO_CLIENT_OPTIONS, openMongoCollection, updateCall } from "../../lib/mongo-store";
import { freePort } from "../support/redis";

describe("Store calls as driver calls", () => {
  test("find options: only what was asked, in the driver's names", () => {
    expect(findOptions()).toEqual({});
    expect(findOptions({ sort: {}, skip: 0, limit: 0 })).toEqual({});
    expect(findOptions({ sort: { createdAt: -1, seq: -1, _id: -1 }, skip: 40, limit: 20 })).toEqual({
      sort: { createdAt: -1, seq: -1, _id: -1 },
      skip: 40,
      limit: 20,
    });
    // The sort's key order is the order of precedence.
    expect(Object.keys(findOptions({ sort: { b: 1, a: -1 } }).sort as object)).toEqual(["b", "a"]);
  });

  test("updates: operators go to updateOne/updateMany, a plain document is a replaceOne", () => {
    expect(updateCall({ $set: { a: 1 } })).toEqual({ method: "updateOne", upsert: false });
    expect(updateCall({ $set: { a: 1 }, $unset: { b: true } }, { multi: true })).toEqual({ method: "updateMany", upsert: false });
    expect(updateCall({ $inc: { n: 1 } }, { upsert: true })).toEqual({ method: "updateOne", upsert: true });
    expect(updateCall({ a: 1, b: 2 })).toEqual({ method: "replaceOne", upsert: false });
    expect(updateCall({ a: 1 }, { upsert: true })).toEqual({ method: "replaceOne", upsert: true });
    expect(() => updateCall({ a: 1 }, { multi: true })).toThrow(/several documents/);
    expect(() => updateCall({ $set: { a: 1 }, b: 2 })).toThrow(/mixes operators and fields/);
  });

  test("indexes: fields in order, unique and sparse always said", () => {
    expect(indexArgs({ fields: { userId: 1, createdAt: -1 } })).toEqual([
      { userId: 1, createdAt: -1 },
      { unique: false, sparse: false },
    ]);
    expect(indexArgs({ fields: { seq: 1 }, unique: true, sparse: true })).toEqual([{ seq: 1 }, { unique: true, sparse: true }]);
  });

  test("the driver's duplicate-key errors are recognised, nothing else is", () => {
    expect(
      isMongoDuplicateKey(
        new MongoServerError({ code: 11000, errmsg: "E11000 duplicate key error collection: pmx.notifications index: _id_" }),
      ),
    ).toBe(true);
    expect(isMongoDuplicateKey(new MongoServerError({ code: 112, errmsg: "WriteConflict" }))).toBe(false);
    expect(isMongoDuplicateKey(new Error("E11000"))).toBe(false);
    expect(isMongoDuplicateKey(null)).toBe(false);
  });
});

describe("client options for the deployment URIs", () => {
  // The URIs docker-compose.yml and k8s/configmap.yaml give MONGO_URI.
  const uris = ["mongodb://mongo:27017/pmx?replicaSet=rs0", "mongodb://mongo-0.mongo.pmx.svc.cluster.local:27017/pmx?replicaSet=rs0"];

  test.each(uris)("%s: database pmx, replica set rs0, majority + journal writes, undefined left out", async (uri) => {
    const client = new MongoClient(uri, MONGO_CLIENT_OPTIONS);
    // Nothing connects before connect(): these are the options every operation runs with.
    expect(client.db().databaseName).toBe("pmx");
    expect(client.options.replicaSet).toBe("rs0");
    expect(client.options.writeConcern).toMatchObject({ w: "majority", journal: true });
    expect(client.bsonOptions.ignoreUndefined).toBe(true);
    await client.close();
  });

  test("documents encode as NeDB stores them: undefined fields absent, strings, numbers, nested objects, regex queries", () => {
    const doc = {
      _id: "ntf_1",
      userId: "usr_1",
      read: false,
      attempts: 0,
      deliverAt: undefined,
      metadata: { marketId: "mkt_1", positions: [{ outcome: "YES", quantity: "100" }] },
    };
    const back = BSON.deserialize(BSON.serialize(doc, { ignoreUndefined: true }));
    expect(back).toEqual({
      _id: "ntf_1",
      userId: "usr_1",
      read: false,
      attempts: 0,
      metadata: { marketId: "mkt_1", positions: [{ outcome: "YES", quantity: "100" }] },
    });
    expect("deliverAt" in back).toBe(false);
    // catalog/search.ts sends RegExp values in $regex.
    const q = BSON.deserialize(BSON.serialize({ $and: [{ searchText: { $regex: /bitcoin/ } }] }));
    expect(q.$and[0].searchText.$regex).toEqual(/bitcoin/);
  });

  test("an unreachable server fails the open with the driver's server selection error (the node does not start)", async () => {
    const port = await freePort();
    const uri = `mongodb://127.0.0.1:${port}/pmx?directConnection=true&serverSelectionTimeoutMS=300`;
    await expect(openMongoCollection({}, uri, "things", [{ fields: { a: 1 } }])).rejects.toBeInstanceOf(MongoServerSelectionError);
  });
});
