import type { EvalSet } from './evaluate.js';

/*
 * An English set written for issue 16's second pass, after its rules were chosen on LoCoMo
 * conversations 0-4 and never used to choose them: four months of someone's notes and two group
 * chats between their friends Priya and Marco, asked (on day 120, 1 May 2026) in paraphrase, about
 * two notes at once (multi-hop: who fixed the bike, and where that person lives), about a time
 * ("in March", "last week", "yesterday") and about what one of the two friends said. Several
 * notes share a field (bikes, trips, food, work), so the field alone does not pick the note.
 * Written for the test, not taken from a benchmark; no code reads it by id.
 */
export const enDays: EvalSet = {
  name: 'en-days',
  askedOnDay: 120,
  memories: [
    { id: 'd01', day: 3, text: 'Bought a grey Canyon Endurace road bike from the shop on Mill Street.' },
    { id: 'd02', day: 9, text: 'Started a pottery course on Tuesday evenings at the community centre.' },
    { id: 'd03', day: 14, text: 'Jonas trued the back wheel of my bike for free after the crash.' },
    { id: 'd04', day: 15, text: 'Jonas lives in Ghent, close to the old harbour, with his two dogs.' },
    { id: 'd05', day: 22, text: 'My landlord raised the rent by sixty euros starting in February.' },
    { id: 'd06', day: 30, text: 'Signed up for the Amsterdam half marathon in October.' },
    { id: 'd07', day: 38, text: 'The doctor said my knee pain comes from a tight iliotibial band.' },
    { id: 'd08', day: 44, text: 'Lena recommended a physiotherapist called Ruud in the city centre.' },
    { id: 'd09', day: 47, text: 'Ruud works at the clinic above the pharmacy on Oudegracht.' },
    { id: 'd10', day: 52, text: 'Switched my phone contract to a cheaper plan with unlimited data.' },
    { id: 'd11', day: 61, text: 'Ordered a cast iron skillet and a chef knife for the new kitchen.' },
    { id: 'd12', day: 66, text: 'Moved into the flat on Vondelstraat; the boxes are still in the hall.' },
    { id: 'd13', day: 73, text: 'Bought a second-hand sofa, green velvet, for ninety euros.' },
    { id: 'd14', day: 80, text: 'My manager Ilse approved four weeks of leave for the summer.' },
    { id: 'd15', day: 84, text: 'Ilse used to be a nurse before she moved into software.' },
    { id: 'd16', day: 88, text: 'Got a speeding fine in the post: 54 in a 50 zone near Utrecht.' },
    { id: 'd17', day: 95, text: 'Finished reading a novel about a lighthouse keeper on a Scottish island.' },
    { id: 'd18', day: 101, text: 'Booked a ferry to Hull for the trip to see my aunt in York.' },
    { id: 'd19', day: 104, text: 'My aunt Ruth runs a tea room near York Minster.' },
    { id: 'd20', day: 110, text: 'Had the boiler serviced; the engineer replaced a leaking valve.' },
    { id: 'd21', day: 112, text: 'Tried a Georgian restaurant with Sam, loved the cheese bread.' },
    { id: 'd22', day: 114, text: 'Ran eighteen kilometres along the river without knee pain.' },
    { id: 'd23', day: 117, text: 'The pottery teacher fired my first bowl; the glaze came out blue.' },
    { id: 'd24', day: 119, text: 'Lost my house keys at the gym and had to call a locksmith.' },
    { id: 'd25', day: 119, text: 'Paid the locksmith eighty euros for a new lock.' },
    // A group chat the assistant reads: Priya and Marco plan a trip (day 57) and a party (day 111).
    { id: 'c01', day: 57, session: 'chat-trip', speaker: 'Priya', text: 'Priya: For the long weekend I would go to the Ardennes, cabins by the river are cheap.' },
    { id: 'c02', day: 57, session: 'chat-trip', speaker: 'Marco', text: 'Marco: I would rather fly somewhere warm, Lisbon maybe.' },
    { id: 'c03', day: 57, session: 'chat-trip', speaker: 'Priya', text: 'Priya: Flights are expensive that week. We could drive, it takes three hours.' },
    { id: 'c04', day: 57, session: 'chat-trip', speaker: 'Marco', text: 'Marco: Fine, but I am not sleeping in a tent.' },
    { id: 'c05', day: 57, session: 'chat-trip', speaker: 'Priya', text: 'Priya: No tent, I found a cabin with a wood stove for four people.' },
    { id: 'c06', day: 57, session: 'chat-trip', speaker: 'Marco', text: 'Marco: Then I will bring the board games and the coffee grinder.' },
    { id: 'c07', day: 111, session: 'chat-party', speaker: 'Marco', text: 'Marco: Are we still doing the birthday party on Saturday?' },
    { id: 'c08', day: 111, session: 'chat-party', speaker: 'Priya', text: 'Priya: Yes, at my place. Could you make your lemon cake?' },
    { id: 'c09', day: 111, session: 'chat-party', speaker: 'Marco', text: 'Marco: Sure. How many people are coming?' },
    { id: 'c10', day: 111, session: 'chat-party', speaker: 'Priya', text: 'Priya: About twelve, and two of them are vegan.' },
    { id: 'c11', day: 111, session: 'chat-party', speaker: 'Marco', text: 'Marco: Then I will bake a second cake without eggs or butter.' },
    { id: 'c12', day: 111, session: 'chat-party', speaker: 'Priya', text: 'Priya: Perfect. I will handle the music and the drinks.' },
  ],
  queries: [
    // Paraphrase: a general word or a description where the note has the name.
    { query: 'What kind of bicycle did I get?', relevant: ['d01'] },
    { query: 'Which evening class am I taking?', relevant: ['d02'] },
    { query: 'How much more do I pay for my apartment now?', relevant: ['d05'] },
    { query: 'Which race have I entered?', relevant: ['d06'] },
    { query: 'What is causing my leg problem?', relevant: ['d07'] },
    { query: 'What couch did I buy and what did it cost?', relevant: ['d13'] },
    { query: 'Where do I live now?', relevant: ['d12'] },
    { query: 'What book did I read recently?', relevant: ['d17'] },
    { query: 'What repair was done on the heating?', relevant: ['d20'] },
    // Multi-hop: two notes answer together.
    { query: 'Where does the person who fixed my bike wheel live?', relevant: ['d03', 'd04'] },
    { query: 'Where is the practice of the physio Lena suggested?', relevant: ['d08', 'd09'] },
    { query: 'What did my boss do before working in software, and what leave did she approve?', relevant: ['d14', 'd15'] },
    { query: 'How will I travel to my aunt, and what business does she have?', relevant: ['d18', 'd19'] },
    { query: 'How much did getting locked out cost me?', relevant: ['d24', 'd25'] },
    // Temporal: the question names a time, the note does not say it.
    { query: 'What did I buy in March?', relevant: ['d11', 'd13'] },
    { query: 'What happened yesterday?', relevant: ['d24', 'd25'] },
    { query: 'What did I do last week?', relevant: ['d20', 'd21', 'd22'] },
    { query: 'What changed with my phone in February?', relevant: ['d10'] },
    { query: 'What did I eat out last week?', relevant: ['d21'] },
    { query: 'What trouble did I have with the police in March?', relevant: ['d16'] },
    // What one of the two friends said.
    { query: 'Where did Priya want to go for the long weekend?', relevant: ['c01'] },
    { query: 'Where did Marco want to go instead?', relevant: ['c02'] },
    { query: 'What kind of place to stay did Priya find?', relevant: ['c05'] },
    { query: 'What is Marco bringing on the trip?', relevant: ['c06'] },
    { query: 'What did Priya ask Marco to bake?', relevant: ['c08'] },
    { query: 'How many guests did Priya expect?', relevant: ['c10'] },
    { query: 'What will Marco do for the vegan guests?', relevant: ['c11'] },
    { query: 'What is Priya taking care of at the party?', relevant: ['c12'] },
  ],
};
