import fc from "fast-check";
import Datastore from "@seald-io/nedb";
import { queryTokens, rankBySearch, scoreEvent, searchTextOf, tokensFilter, words, type Searchable } from "../../catalog/search";

const ev = (id: string, e: Partial<Searchable>): Searchable & { id: string } => ({
  id,
  title: "",
  subtitle: "",
  tags: [],
  marketTitles: [],
  ...e,
});

describe("words and tokens", () => {
  test("lower-case letter/digit words, punctuation splits", () => {
    expect(words("E-sports: BTC/USD > $100k!")).toEqual(["e", "sports", "btc", "usd", "100k"]);
    expect(words("Ünïcode Straße")).toEqual(["ünïcode", "straße"]);
  });
  test("query tokens are distinct; punctuation-only queries have none", () => {
    expect(queryTokens("BTC btc Price")).toEqual(["btc", "price"]);
    expect(queryTokens("  !!! ")).toEqual([]);
  });
});

describe("ranking", () => {
  test("field order: title > tag > market title > subtitle", () => {
    const items = [
      ev("subtitle", { title: "Something", subtitle: "About bitcoin" }),
      ev("market", { title: "Something", marketTitles: ["Bitcoin above 100k"] }),
      ev("tag", { title: "Something", tags: ["bitcoin"] }),
      ev("title", { title: "Bitcoin at year end" }),
      ev("none", { title: "Ethereum" }),
    ];
    expect(rankBySearch(items, queryTokens("bitcoin")).map((e) => e.id)).toEqual(["title", "tag", "market", "subtitle"]);
  });

  test("within a field: exact word > prefix > substring; a weaker field never beats a stronger one", () => {
    const items = [
      ev("substring", { title: "Megabitcoins" }),
      ev("prefix", { title: "Bitcoiners rally" }),
      ev("exact", { title: "Bitcoin rally" }),
      ev("tag-exact", { title: "x", tags: ["bitcoin"] }),
    ];
    expect(rankBySearch(items, ["bitcoin"]).map((e) => e.id)).toEqual(["exact", "prefix", "substring", "tag-exact"]);
  });

  test("every word must match somewhere; more and better hits rank higher", () => {
    const items = [
      ev("a", { title: "Bitcoin price", tags: ["crypto"] }),
      ev("b", { title: "Bitcoin" }),
      ev("c", { title: "Crypto winter", subtitle: "bitcoin" }),
    ];
    expect(rankBySearch(items, queryTokens("bitcoin crypto")).map((e) => e.id)).toEqual(["a", "c"]);
  });

  test("the whole phrase in the title beats the words scattered", () => {
    const items = [ev("scattered", { title: "Price of New gold in York" }), ev("phrase", { title: "New York mayor price" })];
    expect(rankBySearch(items, queryTokens("new york")).map((e) => e.id)).toEqual(["phrase", "scattered"]);
  });

  test("equal scores keep the input order (the list order)", () => {
    const items = [ev("1", { title: "Fed decision" }), ev("2", { title: "Fed decision" }), ev("3", { title: "Fed decision" })];
    expect(rankBySearch(items, ["fed"]).map((e) => e.id)).toEqual(["1", "2", "3"]);
  });

  test("no tokens, no score", () => {
    expect(scoreEvent(ev("x", { title: "anything" }), [])).toBe(0);
  });
});

describe("the store filter and the scorer agree", () => {
  const wordArb = fc.stringMatching(/^[a-zé0-9]{1,6}$/);
  const textArb = fc.array(wordArb, { maxLength: 4 }).map((ws) => ws.join(" "));
  const docArb = fc.record({
    title: textArb,
    subtitle: textArb,
    tags: fc.array(textArb, { maxLength: 3 }),
    marketTitles: fc.array(textArb, { maxLength: 3 }),
  });

  test("NeDB with tokensFilter returns exactly the events scoreEvent scores above 0", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.stringMatching(/^[a-zé0-9]{1,3}$/), { minLength: 1, maxLength: 2 }),
        async (docs, qWords) => {
          const db = new Datastore({ inMemoryOnly: true });
          await db.insertAsync(docs.map((d, i) => ({ _id: String(i), ...d, searchText: searchTextOf(d) })));
          const tokens = queryTokens(qWords.join(" "));
          const found = ((await db.findAsync(tokensFilter(tokens))) as unknown as Array<{ _id: string }>).map((d) => d._id).sort();
          const scored = docs
            .map((d, i) => [String(i), scoreEvent(d, tokens)] as const)
            .filter(([, s]) => s > 0)
            .map(([id]) => id)
            .sort();
          expect(found).toEqual(scored);
        },
      ),
      { numRuns: 150 },
    );
  });

  test("regex metacharacters in a query never act as operators", () => {
    expect(tokensFilter(queryTokens(".* (a|b) [x]"))).toEqual({
      $and: [{ searchText: { $regex: /a/ } }, { searchText: { $regex: /b/ } }, { searchText: { $regex: /x/ } }],
    });
  });
});
