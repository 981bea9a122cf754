/**
 * Deterministic benchmark data: memories of mixed English and Chinese text (about 100-300 characters)
 * with participants, topics and key facts, and search queries in the same vocabulary. The same seed
 * always gives the same corpus, so runs compare like with like.
 */

/** What `engine.writeMemory` takes, without the id. */
export interface MemoryInput {
  readonly text: string;
  readonly importance: number;
  readonly sessionId: string;
  readonly personaId: string;
  readonly userId: string;
  readonly topics: string[];
  readonly keyFacts: string[];
  readonly participants: string[];
  readonly sentiment: string | null;
}

/** mulberry32: small, fast and the same everywhere. */
export function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number): number => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}
type Random = ReturnType<typeof randomSource>;

const enNames = [
  'Alice', 'Bob', 'Carol', 'David', 'Emma', 'Frank', 'Grace', 'Henry', 'Isabel', 'Jack', 'Kate', 'Liam', 'Maria', 'Noah', 'Olivia',
  'Peter', 'Quinn', 'Rachel', 'Sam', 'Tina', 'Umar', 'Vera', 'Will', 'Xavier', 'Yasmin', 'Zoe', 'Aaron', 'Bella', 'Chris', 'Diana',
  'Ethan', 'Fiona', 'George', 'Hannah', 'Ivan', 'Julia', 'Kevin', 'Laura', 'Marco', 'Nina', 'Oscar', 'Paula', 'Ryan', 'Sofia',
  'Tom', 'Uma', 'Victor', 'Wendy', 'Yusuf', 'Zara',
];
const zhSurnames = ['王', '李', '张', '刘', '陈', '杨', '赵', '黄', '周', '吴', '徐', '孙', '马', '朱', '胡', '郭', '何', '林', '高', '罗'];
const zhGiven = ['伟', '芳', '明', '静', '磊', '丽', '洋', '敏', '杰', '涛', '悦', '超', '琳', '军', '婷', '浩'];
const zhNames = zhSurnames.flatMap((s, i) => zhGiven.filter((_, j) => (i + j) % 3 === 0).map((g) => `${s}${g}`));
const kinEn = ['friend', 'colleague', 'sister', 'brother', 'manager', 'roommate', 'neighbour', 'mentor', 'cousin', 'teacher'];
const kinZh = ['朋友', '同事', '姐姐', '哥哥', '老板', '室友', '邻居', '老师', '同学', '搭档'];
const foodsEn = ['green tea', 'espresso', 'sushi', 'spicy noodles', 'dark chocolate', 'peanuts', 'oat milk', 'mango', 'ramen', 'tofu', 'sourdough', 'kimchi'];
const foodsZh = ['火锅', '小笼包', '麻辣烫', '红烧肉', '豆浆', '油条', '烤鸭', '饺子', '奶茶', '凉皮', '煎饼果子', '酸菜鱼'];
const citiesEn = ['Lisbon', 'Berlin', 'Tokyo', 'Seattle', 'Toronto', 'Singapore', 'Barcelona', 'Melbourne', 'Dublin', 'Austin', 'Oslo', 'Prague'];
const citiesZh = ['北京', '上海', '杭州', '成都', '深圳', '南京', '西安', '广州', '厦门', '重庆', '苏州', '青岛'];
const placesEn = ['the office', 'the gym', 'a small cafe downtown', 'the library', 'the airport', 'the farmers market', 'the park by the river'];
const placesZh = ['公司楼下的咖啡馆', '健身房', '图书馆', '机场', '菜市场', '公园', '新开的书店'];
const activitiesEn = ['go hiking in the hills', 'learn the cello', 'run a half marathon', 'take a pottery class', 'visit an old friend', 'start a vegetable garden', 'go camping by the lake'];
const activitiesZh = ['去爬山', '学做饭', '练瑜伽', '去看演唱会', '报一个摄影班', '去海边露营', '跑半程马拉松'];
const projects = ['Atlas', 'Borealis', 'Cedar', 'Delta', 'Ember', 'Falcon', 'Granite', 'Helix', 'Iris', 'Juniper'];
const techTopics = ['vector search', 'event sourcing', 'SQLite tuning', 'the billing API', 'the onboarding flow', 'the mobile release', 'the data migration'];
const companies = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark Labs', 'Hooli', '字节跳动', '阿里巴巴', '腾讯', '美团'];
const jobsEn = ['designer', 'data engineer', 'nurse', 'product manager', 'architect', 'teacher', 'accountant', 'lawyer'];
const jobsZh = ['设计师', '工程师', '医生', '产品经理', '会计', '律师', '记者', '老师'];
const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const zhDays = ['周一', '周二', '周三', '周四', '周五', '周六', '周日'];
const books = ['人类简史', '三体', '活着', 'Deep Work', 'Atomic Habits', 'The Pragmatic Programmer', 'Thinking, Fast and Slow'];
const topicPool = ['travel', 'food', 'work', 'health', 'family', 'books', 'music', 'sports', '旅行', '美食', '工作', '健康', '家人', '读书', '学习', '理财'];
const sentiments = ['positive', 'neutral', 'negative', 'excited', 'worried', null];

interface Slots {
  readonly en: string;
  readonly en2: string;
  readonly zh: string;
  readonly zh2: string;
}

type Template = (r: Random, s: Slots) => string;

/** Sentences of some 40-150 characters; a memory is one to four of them. */
const templates: readonly Template[] = [
  (r, s) => `${s.en} said they prefer ${r.pick(foodsEn)} in the morning and cannot stand ${r.pick(foodsEn)}, especially after a long run.`,
  (r, s) => `Yesterday ${s.en} and I talked about ${r.pick(techTopics)} at ${r.pick(placesEn)}, and ${s.en2}, my ${r.pick(kinEn)}, joined us later.`,
  (r, s) => `I am planning to ${r.pick(activitiesEn)} near ${r.pick(citiesEn)} next ${r.pick(weekdays)} with ${s.en} if the weather holds.`,
  (r, s) => `${s.en} works at ${r.pick(companies)} as a ${r.pick(jobsEn)} and has lived in ${r.pick(citiesEn)} for ${r.int(2, 15)} years.`,
  (r, s) => `Remember that ${s.en} is allergic to ${r.pick(foodsEn)}, so avoid it at the team dinner on ${r.pick(weekdays)}.`,
  (r, s) => `The review of project ${r.pick(projects)} moved to ${r.pick(weekdays)} at ${r.int(8, 18)}:00 and ${s.en} will send the slides the day before.`,
  (r, s) => `${s.en} recommended the book ${r.pick(books)} and said chapter ${r.int(1, 20)} changed how they plan their week.`,
  (r, s) => `Last month ${s.en} visited ${r.pick(citiesEn)} for ${r.int(2, 9)} days and loved the ${r.pick(foodsEn)} at a tiny place near the station.`,
  (r, s) => `${s.zh}说他最喜欢${r.pick(foodsZh)}，每个${r.pick(zhDays)}下班以后都会去${r.pick(placesZh)}坐一会儿。`,
  (r, s) => `昨天和${s.zh}一起去${r.pick(citiesZh)}参加了关于${r.pick(topicPool)}的讨论会，认识了${s.zh2}，收获很大。`,
  (r, s) => `我打算下个月跟${s.zh}去${r.pick(citiesZh)}旅行，预算大概${r.int(20, 90) * 100}元，酒店还没有订。`,
  (r, s) => `${s.zh}是我的${r.pick(kinZh)}，在${r.pick(companies)}做${r.pick(jobsZh)}，已经在${r.pick(citiesZh)}住了${r.int(2, 15)}年。`,
  (r, s) => `提醒：${s.zh}对${r.pick(foodsZh)}过敏，下次在${r.pick(citiesZh)}聚餐的时候一定要提前跟餐厅说。`,
  (r, s) => `${s.zh2}最近在${r.pick(activitiesZh)}，说已经坚持了${r.int(2, 30)}天，睡眠和精神都比以前好多了。`,
  (r, s) => `${s.zh}推荐了一本书叫《${r.pick(books)}》，说第${r.int(1, 20)}章对他影响最大，建议我周末读一读。`,
  (r, s) => `Meeting with ${s.zh} 讨论 project ${r.pick(projects)} 的 deadline，最后定在${r.pick(zhDays)}下午${r.int(1, 6)}点，需要提前准备 demo。`,
  (r, s) => `下周要 review ${s.en} 的 PR，关于 ${r.pick(techTopics)}，大概 ${r.int(100, 900)} 行改动，他希望${r.pick(zhDays)}之前合并。`,
  (r, s) => `${s.en} 和 ${s.zh} 都喜欢 ${r.pick(foodsEn)}，上次在${r.pick(citiesZh)}一起吃了${r.pick(foodsZh)}，聊到很晚。`,
];

/** One memory of about 100-300 characters; `i` varies the choices, the text is not numbered. */
export function memoryInput(i: number, seed = 1): MemoryInput {
  const r = randomSource(seed * 1_000_003 + i);
  const slots: Slots = { en: r.pick(enNames), en2: r.pick(enNames), zh: r.pick(zhNames), zh2: r.pick(zhNames) };
  // At least 100 characters, then sometimes one more sentence: most memories are short, a few long.
  let text = '';
  const used = new Set<Template>();
  for (let guard = 0; guard < 10 && (text.length < 100 || r.next() < 0.3); guard += 1) {
    const template = r.pick(templates);
    if (used.has(template)) continue;
    used.add(template);
    const sentence = template(r, slots);
    if (text.length > 0 && text.length + 1 + sentence.length > 300) break;
    text = text.length === 0 ? sentence : `${text} ${sentence}`;
  }
  // The people the text names (no fixed "user": see the graph scaling row of the projections benchmark).
  const participants = [slots.en, slots.en2, slots.zh, slots.zh2].filter((name, n, all) => text.includes(name) && all.indexOf(name) === n);
  const topics = [...new Set([r.pick(topicPool), r.pick(topicPool)])].slice(0, r.int(1, 2));
  const keyFacts = r.next() < 0.3 ? [`${slots.en} likes ${r.pick(foodsEn)}`] : [];
  return {
    text,
    importance: Math.round(r.next() * 100) / 100,
    sessionId: `session-${i % 400}`,
    personaId: `persona-${i % 3}`,
    // A hundred users: the erasure benchmark erases one of them.
    userId: `user-${i % 100}`,
    topics,
    keyFacts,
    participants,
    sentiment: r.pick(sentiments),
  };
}

/** Short queries in the corpus's vocabulary, English, Chinese and mixed. */
export function searchQueries(count: number, seed = 7): string[] {
  const r = randomSource(seed);
  const shapes: readonly ((r: Random) => string)[] = [
    (q) => `${q.pick(enNames)} ${q.pick(foodsEn)}`,
    (q) => `trip to ${q.pick(citiesEn)} next ${q.pick(weekdays)}`,
    (q) => `${q.pick(zhNames)}喜欢吃什么`,
    (q) => `去${q.pick(citiesZh)}旅行的预算`,
    (q) => `project ${q.pick(projects)} deadline`,
    (q) => `${q.pick(zhNames)} 的 ${q.pick(techTopics)}`,
    (q) => `who is allergic to ${q.pick(foodsEn)}`,
    (q) => `${q.pick(kinZh)}在${q.pick(companies)}工作`,
  ];
  return Array.from({ length: count }, () => r.pick(shapes)(r));
}
