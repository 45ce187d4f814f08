import type { Service } from "moleculer";
import { defineService } from "../../mixins/service";

/**
 * defineService checks a schema's `methods` against the service's own `this` type. The refusals
 * are compile errors, pinned with @ts-expect-error: `npm run typecheck` fails if one compiles.
 */
type CounterThis = Service & { count: number; add(n: number): number; reset(): void };

describe("defineService", () => {
  test("methods that implement every method of the service's type compile, with the service as this", () => {
    const schema = defineService<CounterThis>({
      name: "counter",
      methods: {
        add(n) {
          this.count += n;
          return this.count;
        },
        reset() {
          this.count = 0;
        },
      },
    });
    expect(Object.keys(schema.methods ?? {})).toEqual(["add", "reset"]);
  });

  test("a declared method left out, one with the wrong signature, or one not declared does not compile", () => {
    const add = (n: number) => n;
    // @ts-expect-error reset() is declared on the type and not implemented
    defineService<CounterThis>({ name: "c", methods: { add } });
    // @ts-expect-error the type has methods: the schema must implement them
    defineService<CounterThis>({ name: "c" });
    defineService<CounterThis>({
      name: "c",
      methods: {
        // @ts-expect-error add takes a number
        add: (n: string) => n.length,
        reset() {},
      },
    });
    defineService<CounterThis>({
      name: "c",
      methods: {
        add,
        reset() {},
        // @ts-expect-error not declared on the service's type
        extra() {},
      },
    });
    // A member a mixin provides is not the schema's to implement.
    defineService<CounterThis, "reset">({ name: "c", methods: { add } });
    expect(true).toBe(true);
  });
});
