// Extra facts of the same user for the recall benchmark's 1,000 and 10,000 sizes: plausible memories
// (other people's details, books read, places visited, purchases, work projects, plants, …) that
// answer none of corpus.json's questions. They share words with the corpus on purpose (a friend's
// city, a colleague's job, a restaurant visited once), because a real memory is like that.
//
// Deterministic: the same (count, seed) gives the same facts, and a smaller count is a prefix of a
// larger one, so the 1,000-entry corpus is inside the 10,000-entry one.

/** The default seed of the benchmark. */
export const DEFAULT_SEED = 21;

/** mulberry32: a small seeded PRNG (uniform in [0, 1)). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  'ana', 'bruno', 'carla', 'david', 'elena', 'felix', 'greta', 'hugo', 'iris', 'jonas', 'kira',
  'luis', 'marta', 'nico', 'olga', 'pedro', 'quinn', 'rosa', 'sami', 'tara', 'umar', 'vera',
  'wim', 'xena', 'yusuf', 'zoe', 'amir', 'bea', 'chen', 'dora', 'emil', 'fatima', 'gil', 'hana',
  'ivo', 'joana', 'kofi', 'lena', 'mateo', 'nora',
];
const RELATIONS = ['friend', 'colleague', 'neighbor', 'cousin', 'aunt', 'uncle', 'classmate', 'teammate'];
const CITIES = [
  'Porto', 'Madrid', 'Berlin', 'Lyon', 'Milan', 'Ghent', 'Seville', 'Krakow', 'Dublin', 'Bristol',
  'Toronto', 'Austin', 'Osaka', 'Sao Paulo', 'Cape Town', 'Faro', 'Coimbra', 'Braga', 'Turin', 'Bilbao',
];
const JOBS = [
  'nurse', 'architect', 'teacher', 'product designer', 'accountant', 'physiotherapist', 'chef',
  'lawyer', 'journalist', 'electrician', 'pharmacist', 'pilot', 'translator', 'biologist',
];
const HOBBIES = [
  'surfing', 'pottery', 'salsa dancing', 'sailing', 'board games', 'birdwatching', 'knitting',
  'trail running', 'woodworking', 'astronomy', 'choir singing', 'fishing',
];
const BOOKS = [
  'the_dispossessed', 'piranesi', 'station_eleven', 'the_overstory', 'klara_and_the_sun',
  'pachinko', 'the_remains_of_the_day', 'circe', 'sapiens', 'the_road', 'middlemarch', 'dune',
  'the_name_of_the_rose', 'blindness', 'the_book_of_disquiet', 'normal_people',
];
const FILMS = [
  'past_lives', 'arrival', 'perfect_days', 'aftersun', 'parasite', 'roma', 'drive_my_car',
  'the_zone_of_interest', 'paterson', 'amelie', 'spirited_away', 'the_lives_of_others',
];
const ITEMS = [
  'rain_jacket', 'standing_desk', 'espresso_grinder', 'hiking_boots', 'air_purifier',
  'bike_lights', 'rice_cooker', 'noise_cancelling_headphones', 'office_chair', 'tent', 'kettle',
  'winter_coat', 'board_game_catan', 'yoga_mat', 'blender',
];
const STORES = ['IKEA', 'Decathlon', 'Worten', 'FNAC', 'a local shop', 'a second-hand market', 'online'];
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December',
];
const PROJECTS = [
  'atlas', 'beacon', 'cobalt', 'delta', 'ember', 'falcon', 'granite', 'harbor', 'indigo', 'juniper',
  'kestrel', 'lumen', 'meridian', 'nimbus', 'orchid', 'pylon',
];
const PROJECT_WORK = [
  'migrating the warehouse tables to Parquet', 'a route-planning dashboard', 'the billing export',
  'cleaning up the shipment events stream', 'a forecasting model for returns', 'the audit log service',
];
const PLANTS = [
  ['monstera', 'living room'], ['basil', 'kitchen window'], ['fiddle_leaf_fig', 'hallway'],
  ['lemon_tree', 'balcony'], ['snake_plant', 'bedroom'], ['pothos', 'bookshelf'],
  ['rosemary', 'balcony'], ['orchid', 'bathroom'],
];
const COURSES = [
  'rust', 'portuguese_grammar', 'watercolour', 'statistics', 'first_aid', 'sourdough_baking',
  'public_speaking', 'guitar_basics', 'photo_editing', 'negotiation',
];
const PLATFORMS = ['Coursera', 'a night class', 'YouTube', 'a weekend workshop', 'edX', 'the library'];
const SERVICES = ['spotify', 'netflix', 'icloud', 'the_guardian', 'duolingo', 'strava', 'nyt_cooking', 'audible'];

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const year = (rand) => 2012 + Math.floor(rand() * 14);
const rating = (rand) => `${1 + Math.floor(rand() * 5)}/5`;

/** The families of distractor facts: each draws a key and a value. */
const FAMILIES = [
  (rand) => {
    const who = `${pick(rand, RELATIONS)}_${pick(rand, NAMES)}`;
    const facet = Math.floor(rand() * 4);
    if (facet === 0) return [`${who}_city`, `lives in ${pick(rand, CITIES)}`];
    if (facet === 1) return [`${who}_job`, `works as a ${pick(rand, JOBS)}`];
    if (facet === 2) return [`${who}_hobby`, `${pick(rand, HOBBIES)} on weekends`];
    return [`${who}_met`, `met in ${pick(rand, CITIES)} in ${year(rand)}`];
  },
  (rand) => [`read_${pick(rand, BOOKS)}_${year(rand)}`, `finished in ${pick(rand, MONTHS)}, ${rating(rand)}`],
  (rand) => [`watched_${pick(rand, FILMS)}_${year(rand)}`, `saw it ${pick(rand, ['at the cinema', 'at home', 'on a flight'])}, ${rating(rand)}`],
  (rand) => {
    const city = pick(rand, CITIES);
    const month = pick(rand, MONTHS);
    return [`visited_${city.toLowerCase().replace(/ /g, '_')}_${month.toLowerCase()}_${year(rand)}`, `${2 + Math.floor(rand() * 9)} days in ${month}, ${pick(rand, ['for a wedding', 'for work', 'with friends', 'alone', 'for a conference'])}`];
  },
  (rand) => {
    const month = pick(rand, MONTHS);
    return [`bought_${pick(rand, ITEMS)}_${month.toLowerCase()}_${year(rand)}`, `in ${month} from ${pick(rand, STORES)}, EUR ${10 + Math.floor(rand() * 490)}`];
  },
  (rand) => [`project_${pick(rand, PROJECTS)}_${year(rand)}`, `${pick(rand, PROJECT_WORK)}, shipped in ${pick(rand, MONTHS)}`],
  (rand) => {
    const [plant, place] = pick(rand, PLANTS);
    return [`plant_${plant}_${pick(rand, NAMES)}`, `on the ${place}, water every ${2 + Math.floor(rand() * 12)} days`];
  },
  (rand) => [`course_${pick(rand, COURSES)}_${year(rand)}`, `${pick(rand, PLATFORMS)}, ${pick(rand, ['finished', 'dropped halfway', 'in progress', 'enrolled'])}`],
  (rand) => [`subscription_${pick(rand, SERVICES)}_${year(rand)}`, `${pick(rand, ['cancelled', 'family plan', 'student plan', 'trial ended'])} in ${pick(rand, MONTHS)}`],
  (rand) => [`gift_for_${pick(rand, RELATIONS)}_${pick(rand, NAMES)}_${year(rand)}`, `gave ${pick(rand, ITEMS).replace(/_/g, ' ')}`],
];

/**
 * `count` distinct distractor facts `{ key, value }`, the same for the same seed.
 *
 * @param {number} count how many (0 … 50,000)
 * @param {number} [seed]
 * @param {Iterable<string>} [avoid] keys that must not be produced (the corpus's own)
 * @returns {{ key: string, value: string }[]}
 * @example
 * const extra = distractors(1000 - corpus.facts.length, 21, corpus.facts.map((f) => f.key));
 */
export function distractors(count, seed = DEFAULT_SEED, avoid = []) {
  if (!Number.isInteger(count) || count < 0 || count > 50_000) {
    throw new RangeError(`distractors(count): an integer in 0 … 50000, not ${count}`);
  }
  const rand = prng(seed);
  const seen = new Set(avoid);
  const out = [];
  let misses = 0;
  while (out.length < count) {
    const [key, value] = pick(rand, FAMILIES)(rand);
    if (seen.has(key)) {
      if (++misses > 1_000_000) throw new Error('distractors: the families are exhausted');
      continue;
    }
    seen.add(key);
    out.push({ key, value });
  }
  return out;
}
