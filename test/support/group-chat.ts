/** One turn of a generated group chat: a person speaks, the assistant answers. */
export interface GroupTurn {
  readonly day: number;
  readonly speaker: { readonly id: string; readonly name: string };
  readonly user: string;
  readonly reply: string;
  readonly at: string;
  readonly replyAt: string;
}

export const people = [
  { id: 'alice', name: 'Alice' },
  { id: 'bob', name: 'Bob' },
] as const;

/** What each day is about: recall on a later day must find the earlier day's facts. */
export const dayTopics = [
  { subject: 'puppy', facts: ['Alice adopted a beagle puppy named Biscuit', 'Biscuit chews the garden hose', 'the vet said Biscuit is healthy'] },
  { subject: 'marathon', facts: ['Bob is training for the Lisbon marathon', 'Bob runs twenty kilometres on Sundays', 'Bob bought trail shoes'] },
  { subject: 'kitchen', facts: ['Alice is painting the kitchen sage green', 'Bob lends Alice a ladder', 'the paint dries overnight'] },
] as const;

/**
 * A deterministic three-day conversation between Alice, Bob and the assistant: `roundsPerDay`
 * rounds a day from 09:00 UTC, one minute apart, each person taking turns.
 */
export function generateGroupChat(roundsPerDay: number, start = Date.UTC(2026, 2, 2, 9)): GroupTurn[] {
  const turns: GroupTurn[] = [];
  dayTopics.forEach((topic, day) => {
    for (let round = 0; round < roundsPerDay; round += 1) {
      const speaker = people[round % 2] ?? people[0];
      const fact = topic.facts[round % topic.facts.length] ?? '';
      const at = start + day * 86_400_000 + round * 120_000;
      turns.push({
        day,
        speaker,
        user: `${speaker.name} here, round ${round}: about the ${topic.subject}, ${fact}.`,
        reply: `Noted, ${speaker.name}: ${fact}.`,
        at: new Date(at).toISOString(),
        replyAt: new Date(at + 60_000).toISOString(),
      });
    }
  });
  return turns;
}
