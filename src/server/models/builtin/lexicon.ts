/** Word lists the extractor's patterns read. Lower-case throughout. */

const set = (s: string): ReadonlySet<string> => new Set(s.split(" "));

/** I, me: the speaker; we, us: the speaker and others (still filed under the speaker). */
export const FIRST_PERSON = set("i me myself mine we us ourselves");
export const PLURAL_FIRST = set("we us ourselves our ours");
export const THIRD_PERSON = set("he him himself she her herself");
export const OTHER_PRONOUNS = set(
  "it itself they them themselves you yourself yourselves this that these those who whom which what " +
    "someone somebody everyone everybody anyone anybody nobody something everything anything nothing one",
);
export const POSSESSIVE_DETS: Readonly<Record<string, "speaker" | "third" | null>> = {
  my: "speaker", our: "speaker", his: "third", her: "third", their: null, your: null, its: null,
};
export const DETERMINERS = set("a an the this that these those some any another every each no all both such many much several few");

/** Company-form suffixes: "Acme Corp" is also known as "Acme". */
export const CORP_SUFFIXES = set(
  "corp corp. corporation inc inc. incorporated ltd ltd. limited llc l.l.c. gmbh co co. company plc ag sa s.a. llp lp",
);
export const HONORIFICS = set("dr dr. mr mr. mrs mrs. ms ms. prof prof. sir dame");

/** Head nouns that name people (the kinship and social roles chat turns are full of). */
export const PERSON_NOUNS = set(
  "mom mum mother dad father parent parents sister brother sibling siblings son daughter kid kids " +
    "child children baby wife husband partner spouse friend friends boyfriend girlfriend fiance fiancee " +
    "grandma grandmother grandpa grandfather grandparents aunt uncle cousin niece nephew boss coworker " +
    "colleague colleagues neighbor neighbour roommate teacher mentor family",
);

/** Nouns too vague to be worth an entity. */
export const VAGUE_NOUNS = set(
  "thing things stuff lot lots time times way ways day days bit kind sort here there one ones part " +
    "anything everything something nothing idea ideas fun all look",
);

export const PREPOSITIONS = set(
  "in at to from with for on about into onto of by near over under through during since until after " +
    "before around across toward towards inside outside without within between among against behind",
);
export const MODALS = set("will would could should might may can must shall");
export const NEGATIONS = set("not never no");
/** Clause-joining words: a sentence splits here when both sides have a verb. */
export const CLAUSE_JOINERS = set("and but so because while although though whereas or then since when");

/** Words compromise sometimes tags as something else but that are verbs after a subject. */
export const FORCE_VERBS = set("like likes liked love loves loved hate hates hated");
/** Verbs whose object is an activity when a gerund follows: "loves painting". */
export const LINKING_VERBS = set("feel feels felt seem seems seemed look looks looked become becomes became sound sounds sounded");

/** "moved to X" means X is where one lives now. */
export const PREDICATE_ALIASES: Readonly<Record<string, string>> = {
  moved_to: "lives_in", moves_to: "lives_in", relocated_to: "lives_in", relocates_to: "lives_in",
  has_moved_to: "lives_in", just_moved_to: "lives_in", moved_into: "lives_in", settled_in: "lives_in",
  works_for: "works_at", is_employed_at: "works_at", is_employed_by: "works_at",
  has_got: "has",
};

/** Predicates whose object, when a bare proper noun, is a place / an organisation / whose subject is a person. */
export const PLACE_PREDICATES = set(
  "lives_in lived_in born_in was_born_in went_to goes_to visited visits traveled_to travelled_to " +
    "is_from was_from comes_from came_from grew_up_in based_in is_based_in stays_in stayed_in flew_to",
);
export const ORG_PREDICATES = set("works_at worked_at joined employed_by hired_by studies_at studied_at founded");
export const PERSON_SUBJECT_PREDICATES = set(
  "lives_in lived_in works_at worked_at likes loves enjoys hates met meets went_to is_a was_a born_in",
);
