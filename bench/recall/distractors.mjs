// Extra facts of the same user for the recall benchmark's 1,000 and 10,000 sizes: plausible memories
// (the people the user knows, places visited, purchases, work projects, plants, films, events, …)
// that answer none of corpus.json's questions. They share words with the corpus on purpose (a friend's
// city, a colleague's job, a film with "car" in its title), because a real memory is like that;
// words that would make one of them a fair answer (a relative who is a dentist) are left out.
//
// Deterministic: the same (count, seed) gives the same facts, and a smaller count is a prefix of a
// larger one, so the 1,000-entry corpus is inside the 10,000-entry one.
import { prng } from '../../tests/support/prng.mjs';

/** The default seed of the benchmark. */
export const DEFAULT_SEED = 21;


const NAMES = (
  'ana bruno carla david elena felix greta hugo iris jonas kira luis marta nico olga pedro quinn ' +
  'rosa sami tara umar vera wim xena yusuf zoe amir bea chen dora emil fatima gil hana ivo joana ' +
  'kofi lena mateo nora oscar paula raul sofia tomas ursula vasco wanda yara zeno adele bernard ' +
  'clara dmitri esther farid gloria henrik ines jamal katja lars mira nadia omar petra rafael ' +
  'selma teo ulrich valentina walter ximena yoko zara alba beni cyrus daria eli flora gustavo ' +
  'helga ian jana kemal leila milan nils orla pia rui sven tilda uma viktor wen yannick zuzana ' +
  'aiko bao chiara diego enzo freya goran heidi ilse jorge kai lucia mads noemi otto priya reza ' +
  'simone thiago una vik wilma'
).split(' ');
const RELATIONS = [
  'friend', 'colleague', 'neighbor', 'cousin', 'aunt', 'uncle', 'classmate', 'teammate',
  'client', 'former_colleague', 'school_friend', 'climbing_partner',
];
const CITIES = [
  'Porto', 'Madrid', 'Berlin', 'Lyon', 'Milan', 'Ghent', 'Seville', 'Krakow', 'Dublin', 'Bristol',
  'Toronto', 'Austin', 'Osaka', 'Sao Paulo', 'Cape Town', 'Faro', 'Coimbra', 'Braga', 'Turin',
  'Bilbao', 'Valencia', 'Munich', 'Rotterdam', 'Vienna', 'Prague', 'Copenhagen', 'Edinburgh',
  'Montreal', 'Nairobi', 'Melbourne',
];
const JOBS = [
  'nurse', 'architect', 'teacher', 'product designer', 'accountant', 'physiotherapist', 'chef',
  'lawyer', 'journalist', 'electrician', 'pharmacist', 'pilot', 'translator', 'biologist',
  'carpenter', 'civil servant', 'librarian', 'sound engineer', 'social worker',
];
const HOBBIES = [
  'surfing', 'pottery', 'salsa dancing', 'sailing', 'board games', 'birdwatching', 'knitting',
  'trail running', 'woodworking', 'astronomy', 'choir singing', 'fishing', 'gardening',
  'amateur theatre', 'kite flying', 'beekeeping', 'calligraphy', 'rowing',
];
const SUBJECTS = [
  'law', 'medicine', 'architecture', 'economics', 'history', 'physics', 'fine arts', 'nursing',
  'computer science', 'philosophy', 'marine biology', 'geology',
];
const SCHOOLS = ['Coimbra', 'Porto', 'Nova', 'Bologna', 'Leuven', 'Edinburgh', 'Salamanca', 'Delft'];
const YEARS = Array.from({ length: 14 }, (_, i) => 2012 + i);
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December',
];
const ITEMS = [
  'rain_jacket', 'standing_desk', 'espresso_grinder', 'hiking_boots', 'air_purifier', 'bike_lights',
  'rice_cooker', 'noise_cancelling_headphones', 'office_chair', 'tent', 'kettle', 'winter_coat',
  'yoga_mat', 'blender', 'picnic_blanket', 'desk_lamp', 'toaster', 'vacuum_cleaner', 'suitcase',
  'bookshelf', 'sofa', 'rug', 'dehumidifier', 'electric_toothbrush', 'bread_maker', 'drill',
  'ladder', 'sewing_machine', 'microwave', 'fan', 'mattress', 'curtains', 'wok', 'cast_iron_pan',
];
const STORES = ['IKEA', 'Decathlon', 'Worten', 'FNAC', 'a local shop', 'a second-hand market', 'online'];
const PROJECTS = [
  'atlas', 'beacon', 'cobalt', 'delta', 'ember', 'falcon', 'granite', 'harbor', 'indigo', 'juniper',
  'kestrel', 'lumen', 'meridian', 'nimbus', 'orchid', 'pylon', 'quartz', 'raven', 'sierra', 'tundra',
];
const PROJECT_WORK = [
  'migrating the warehouse tables to Parquet', 'a route-planning dashboard', 'the billing export',
  'cleaning up the shipment events stream', 'a forecasting model for returns', 'the audit log service',
  'the customs paperwork pipeline', 'a fleet telemetry backfill',
];
const FILMS = [
  'past_lives', 'arrival', 'perfect_days', 'aftersun', 'parasite', 'roma', 'drive_my_car',
  'the_zone_of_interest', 'paterson', 'amelie', 'spirited_away', 'the_lives_of_others', 'tar',
  'minari', 'nomadland', 'the_favourite', 'cold_war', 'shoplifters', 'portrait_of_a_lady_on_fire',
  'anatomy_of_a_fall',
];
const PLANTS = [
  ['monstera', 'living room'], ['basil', 'kitchen window'], ['fiddle_leaf_fig', 'hallway'],
  ['lemon_tree', 'balcony'], ['snake_plant', 'bedroom'], ['pothos', 'bookshelf'],
  ['rosemary', 'balcony'], ['orchid', 'bathroom'], ['aloe', 'desk'], ['fern', 'stairwell'],
];
const COURSES = [
  'rust', 'portuguese_grammar', 'watercolour', 'statistics', 'first_aid', 'sourdough_baking',
  'public_speaking', 'guitar_basics', 'photo_editing', 'negotiation', 'spanish_conversation',
  'sql_performance', 'ceramics', 'sailing_licence',
];
const PLATFORMS = ['Coursera', 'a night class', 'YouTube', 'a weekend workshop', 'edX', 'the library'];
const SERVICES = [
  'spotify', 'netflix', 'icloud', 'the_guardian', 'duolingo', 'strava', 'nyt_cooking', 'audible',
  'github', 'dropbox',
];
const EVENTS = [
  'web_summit', 'pydata_lisbon', 'festa_de_santo_antonio', 'nos_alive', 'lisbon_marathon_expo',
  'data_council', 'craft_beer_festival', 'jazz_em_agosto', 'indielisboa', 'design_week',
];
const PLACES = [
  'garden_centre', 'post_office', 'recycling_centre', 'bike_shop', 'library', 'farmers_market',
  'hardware_store', 'laundromat', 'tailor', 'key_cutter', 'print_shop', 'tyre_shop',
];

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const rating = (rand) => `${1 + Math.floor(rand() * 5)}/5`;
const withArticle = (noun) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
const slug = (text) => text.toLowerCase().replace(/ /g, '_');

/** A fact about someone the user knows: one facet per key. */
function person(rand) {
  const who = `${pick(rand, RELATIONS)}_${pick(rand, NAMES)}`;
  switch (Math.floor(rand() * 8)) {
    case 0: return [`${who}_city`, `lives in ${pick(rand, CITIES)}`];
    case 1: return [`${who}_job`, `works as a ${pick(rand, JOBS)}`];
    case 2: return [`${who}_hobby`, `${pick(rand, HOBBIES)} on weekends`];
    case 3: return [`${who}_met`, `met in ${pick(rand, CITIES)} in ${pick(rand, YEARS)}`];
    case 4: return [`${who}_studied`, `${pick(rand, SUBJECTS)} at ${pick(rand, SCHOOLS)}`];
    case 5: return [`${who}_gift_idea`, `something for ${pick(rand, HOBBIES)}`];
    case 6: return [`${who}_owes`, `${withArticle(pick(rand, ITEMS).replace(/_/g, ' '))} borrowed in ${pick(rand, MONTHS)}`];
    default: return [`${who}_last_call`, `talked in ${pick(rand, MONTHS)} ${pick(rand, YEARS)} about ${pick(rand, HOBBIES)}`];
  }
}

/**
 * The families of distractor facts, each with a weight: the small ones run out (their keys are
 * one per item, so no fact is a near-copy of another), and the draws then fall to people.
 */
const FAMILIES = [
  [6, person],
  [1, (rand) => { const city = pick(rand, CITIES); return [`visited_${slug(city)}`, `${2 + Math.floor(rand() * 9)} days in ${pick(rand, MONTHS)} ${pick(rand, YEARS)}, ${pick(rand, ['for a wedding', 'for a conference', 'with friends', 'alone', 'for a funeral'])}`]; }],
  [1, (rand) => [`bought_${pick(rand, ITEMS)}`, `from ${pick(rand, STORES)} in ${pick(rand, MONTHS)} ${pick(rand, YEARS)}, EUR ${10 + Math.floor(rand() * 490)}`]],
  [1, (rand) => [`project_${pick(rand, PROJECTS)}`, `${pick(rand, PROJECT_WORK)}, shipped in ${pick(rand, MONTHS)} ${pick(rand, YEARS)}`]],
  [1, (rand) => { const [plant, place] = pick(rand, PLANTS); return [`plant_${plant}`, `on the ${place}, water every ${2 + Math.floor(rand() * 12)} days`]; }],
  [1, (rand) => [`course_${pick(rand, COURSES)}`, `${pick(rand, PLATFORMS)}, ${pick(rand, ['finished', 'dropped halfway', 'in progress', 'enrolled'])} in ${pick(rand, YEARS)}`]],
  [1, (rand) => [`subscription_${pick(rand, SERVICES)}`, `${pick(rand, ['cancelled', 'family plan', 'student plan', 'trial ended'])} in ${pick(rand, MONTHS)} ${pick(rand, YEARS)}`]],
  [1, (rand) => [`watched_${pick(rand, FILMS)}`, `saw it ${pick(rand, ['at the cinema', 'at home', 'on a flight'])} in ${pick(rand, YEARS)}, ${rating(rand)}`]],
  [1, (rand) => [`attended_${pick(rand, EVENTS)}_${pick(rand, YEARS)}`, `${pick(rand, ['with colleagues', 'with Maya', 'alone', 'as a volunteer'])}, ${rating(rand)}`]],
  [1, (rand) => [`${pick(rand, PLACES)}_opening_hours`, `${7 + Math.floor(rand() * 4)}:00-${17 + Math.floor(rand() * 5)}:00, closed ${pick(rand, ['Sundays', 'Mondays', 'Saturday afternoons'])}`]],
];
const TOTAL_WEIGHT = FAMILIES.reduce((s, [w]) => s + w, 0);

function drawFamily(rand) {
  let x = rand() * TOTAL_WEIGHT;
  for (const [weight, family] of FAMILIES) {
    x -= weight;
    if (x < 0) return family;
  }
  return FAMILIES[0][1];
}

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
    const [key, value] = drawFamily(rand)(rand);
    if (seen.has(key)) {
      if (++misses > 5_000_000) throw new Error('distractors: the families are exhausted');
      continue;
    }
    seen.add(key);
    out.push({ key, value });
  }
  return out;
}
