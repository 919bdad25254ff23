/*
 * The changed-fact workload: a stream of short texts about people who live in a few busy towns
 * and work at a few shops, where some of them later move or change shop, several times for
 * some. Synthetic, from small vocabularies of our own; deterministic for a given size and seed.
 *
 * Every statement of where someone lives names them in full and says "lives"; every statement
 * of where they work says "works". The builtin answer cites the context items that share the
 * most words with the question, so an old and a new statement that are both still current are
 * cited together, and a stale fact shows in the answer instead of hiding behind a better match.
 * Each text states one fact, so a text whose fact was retired has nothing current left to say.
 */

// Each checked with the builtin extractor: "<First> <Last> lives in <Town>." gives a person
// with a lives_in fact, "… works at <Adjective> <Noun>." an organisation with works_at.
const FIRST = [
  "Alice", "Bruno", "Clara", "Daniel", "Elena", "Felix", "Greta", "Hugo", "Irene", "Jonas", "Karla", "Lucas",
  "Marta", "Nico", "Olga", "Pablo", "Rosa", "Stefan", "Tilda", "Victor", "Wanda", "Yusuf", "Zora", "Anton",
  "Bianca", "Carlos", "Dora", "Emil", "Fiona", "Gustav", "Helena", "Igor", "Julia", "Kurt", "Lena", "Marco",
  "Nora", "Oscar", "Paula", "Rafael", "Sofia", "Tomas", "Ursula", "Vera", "Walter", "Xenia", "Yara", "Ida",
];
const LAST = [
  "Moreau", "Keller", "Dubois", "Novak", "Lindqvist", "Ferreira", "Okafor", "Tanaka", "Petrov", "Schmidt",
  "Rossi", "Jansen", "Kowalski", "Haddad", "Nguyen", "Larsen", "Costa", "Weber", "Marchetti", "Olsen",
  "Fischer", "Horvat", "Sato", "Becker", "Duarte", "Varga", "Svensson", "Lambert", "Meyer", "Castro",
  "Fontaine", "Berger", "Nakamura", "Silva", "Hoffmann", "Quinn", "Ramos", "Vogel", "Yilmaz", "Zimmer",
  "Andersen", "Bauer", "Carvalho", "Dalton", "Eriksen", "Fuchs", "Garcia", "Hansen", "Ivanova", "Jovanovic",
  "Klein", "Lorenz", "Mendes", "Nielsen", "Ortega", "Pereira", "Richter", "Santos", "Torres", "Ulrich",
  "Vidal", "Wagner", "Young", "Ziegler", "Abbott", "Brandt", "Collins", "Dietrich", "Engel", "Fleming",
  "Graham", "Hartmann", "Ingram", "Jensen", "Kruger", "Lindberg", "Molina", "Navarro", "Ostrowski", "Palmer",
  "Reyes", "Schneider", "Thompson", "Urban", "Voss", "Walsh", "Adler", "Barros", "Conti", "Delgado",
  "Esposito", "Falk", "Gallo", "Holm", "Iversen", "Jordan", "Kaiser", "Lund", "Moretti", "Nolan",
  "Olsson", "Pires", "Rinaldi", "Strand", "Tavares", "Unger", "Valente", "Winter", "Zeller", "Bianchi",
];
/** few towns, so that each has many people: the busy town is where old facts used to starve */
const TOWNS = ["Grenoble", "Lyon", "Nantes", "Bordeaux", "Toulouse", "Rennes", "Dijon", "Angers"];
const SHOP_ADJECTIVES = ["Blue", "Golden", "Green"];
const SHOP_NOUNS = ["Bakery", "Bookshop", "Grocery", "Pharmacy", "Florist", "Bistro", "Hardware", "Tailor"];
const SHOPS = SHOP_ADJECTIVES.flatMap((a) => SHOP_NOUNS.map((n) => `${a} ${n}`));
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const MAX_PEOPLE = FIRST.length * LAST.length;

/** the share of texts that change someone's town or shop, once enough people are known */
const CHANGE_SHARE = 0.25;
/** people whose index is ≡ 0 or 1 (mod 5) move or change shop; the others never do */
const isMover = (k: number) => k % 5 < 2;
const START = Date.UTC(2016, 0, 1);
const STEP_MS = 7 * 3600_000;

export interface MovesText {
  text: string;
  occurredAt: Date;
}

export interface Person {
  name: string;
  /** towns in the order they lived there; the last is current */
  towns: string[];
  shops: string[];
}

export interface MovesWorkload {
  texts: MovesText[];
  people: Person[];
}

/** mulberry32: a small seeded PRNG, so that a size always gives the same stream */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` distinct full names, first names spread evenly (many people share one). */
function names(n: number, rnd: () => number): string[] {
  if (n > MAX_PEOPLE) throw new Error(`the moves workload has names for ${MAX_PEOPLE} people, not ${n}`);
  const all = FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`));
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, n);
}

const pick = <T>(xs: readonly T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)]!;
const other = (xs: readonly string[], current: string, rnd: () => number): string => pick(xs.filter((x) => x !== current), rnd);

function moveText(p: string, town: string, at: Date, rnd: () => number): string {
  const when = `${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
  return pick(
    [`Since ${when} ${p} lives in ${town}.`, `${p} moved to ${town} in ${when} and lives there.`, `${p} has moved to ${town} and lives there.`],
    rnd,
  );
}

function shopText(p: string, shop: string, at: Date, rnd: () => number): string {
  const when = `${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
  return pick([`Since ${when} ${p} works at ${shop}.`, `${p} works at ${shop} since ${when}.`], rnd);
}

/**
 * `size` texts: each new person is introduced by where they live and, a text later, where
 * they work; once 20 people are known, a quarter of the texts move a mover to another town or
 * shop (a mover is picked at random, so some change several times).
 */
export function movesWorkload(size: number, seed = 1): MovesWorkload {
  const rnd = random(seed);
  // a person takes two texts to introduce (all of them, when nobody has moved yet)
  const pool = names(Math.ceil(size / 2) + 1, rnd);
  const people: Person[] = [];
  const texts: MovesText[] = [];
  /** movers whose town and shop are both known */
  const movable: Person[] = [];
  let introduced = 0;
  let jobsGiven = 0;
  for (let i = 0; i < size; i++) {
    const at = new Date(START + i * STEP_MS);
    if (movable.length >= 20 && rnd() < CHANGE_SHARE) {
      const p = pick(movable, rnd);
      if (rnd() < 0.5) {
        const town = other(TOWNS, p.towns.at(-1)!, rnd);
        p.towns.push(town);
        texts.push({ text: moveText(p.name, town, at, rnd), occurredAt: at });
      } else {
        const shop = other(SHOPS, p.shops.at(-1)!, rnd);
        p.shops.push(shop);
        texts.push({ text: shopText(p.name, shop, at, rnd), occurredAt: at });
      }
    } else if (jobsGiven < introduced - 1) {
      const p = people[jobsGiven]!;
      const shop = pick(SHOPS, rnd);
      p.shops.push(shop);
      texts.push({ text: `${p.name} works at ${shop}.`, occurredAt: at });
      if (isMover(jobsGiven)) movable.push(p);
      jobsGiven++;
    } else {
      const p: Person = { name: pool[introduced]!, towns: [pick(TOWNS, rnd)], shops: [] };
      people.push(p);
      texts.push({ text: `${p.name} lives in ${p.towns[0]}.`, occurredAt: at });
      introduced++;
    }
  }
  return { texts, people };
}

/** Whether `text` names `place` as a whole phrase. */
export function mentionsPlace(text: string, place: string): boolean {
  return new RegExp(`(^|[^\\p{L}\\p{N}])${place.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}])`, "u").test(text);
}
