/** What Alice and Bob say in the generated group conversation: facts to recall, reactions and small talk. */

export type Person = 'Alice' | 'Bob';
export type Language = 'en' | 'zh';

/** A fact as written into the conversation, with a question that should recall it and words the recalled memory must hold. */
export interface FactLine {
  readonly id: string;
  readonly day: 1 | 2 | 3;
  readonly speaker: Person;
  readonly text: string;
  /** What the other person answers right after (no new fact). */
  readonly reaction: string;
  readonly query: string;
  readonly expected: readonly string[];
}

const en: readonly FactLine[] = [
  { id: 'trip-city', day: 1, speaker: 'Alice', text: 'I am flying to Lisbon for a week in October.', reaction: 'Nice, send me photos of the trams!', query: 'Where is Alice travelling in October?', expected: ['Lisbon'] },
  { id: 'bob-dog', day: 1, speaker: 'Bob', text: 'My dog is called Biscuit, he is a three year old beagle.', reaction: 'Biscuit is such a cute name.', query: "What is the name of Bob's dog?", expected: ['Biscuit'] },
  { id: 'alice-birthday', day: 1, speaker: 'Alice', text: 'My birthday is on 14 March, put it in your calendar.', reaction: 'Done, I will not forget it.', query: 'When is Alice’s birthday?', expected: ['14 March'] },
  { id: 'bob-job', day: 2, speaker: 'Bob', text: 'I quit my job at the bank, next Monday I start as a data engineer at Zalando.', reaction: 'Congratulations, that is a big change!', query: 'Where does Bob work now?', expected: ['Zalando'] },
  { id: 'alice-allergy', day: 2, speaker: 'Alice', text: 'I am allergic to peanuts, so no satay for me.', reaction: 'Good to know, I will remember that.', query: 'What is Alice allergic to?', expected: ['peanuts'] },
  { id: 'bob-sister', day: 2, speaker: 'Bob', text: 'My sister Clara is getting married in Porto in June.', reaction: 'A wedding in Porto sounds lovely.', query: "Where is Bob's sister getting married?", expected: ['Porto', 'Clara'] },
  { id: 'alice-cat', day: 3, speaker: 'Alice', text: 'Yesterday I adopted a grey cat and named her Pixel.', reaction: 'Pixel! Please send a picture.', query: "What is the name of Alice's cat?", expected: ['Pixel'] },
  { id: 'trip-hotel', day: 3, speaker: 'Bob', text: 'I booked the hotel Casa do Rio for you, check-in on 12 October.', reaction: 'Thank you so much, that saves me a lot of time.', query: 'Which hotel did Bob book for the trip?', expected: ['Casa do Rio'] },
  { id: 'alice-dish', day: 3, speaker: 'Alice', text: 'My favourite dish is mushroom risotto, I cook it every Sunday.', reaction: 'I want to try it one day.', query: "What is Alice's favourite dish?", expected: ['risotto'] },
];

const zh: readonly FactLine[] = [
  { id: 'trip-city', day: 1, speaker: 'Alice', text: '我十月要去成都玩一个星期。', reaction: '太好了，记得拍照片！', query: 'Alice十月去哪里旅行？', expected: ['成都'] },
  { id: 'bob-dog', day: 1, speaker: 'Bob', text: '我家的狗叫豆豆，是一只三岁的柯基。', reaction: '豆豆这个名字真可爱。', query: 'Bob的狗叫什么名字？', expected: ['豆豆'] },
  { id: 'alice-birthday', day: 1, speaker: 'Alice', text: '我的生日是3月14日，记在日历上吧。', reaction: '记下了，不会忘的。', query: 'Alice的生日是哪天？', expected: ['3月14日'] },
  { id: 'bob-job', day: 2, speaker: 'Bob', text: '我从银行辞职了，下周一去字节跳动当数据工程师。', reaction: '恭喜恭喜，变化真大！', query: 'Bob现在在哪里工作？', expected: ['字节跳动'] },
  { id: 'alice-allergy', day: 2, speaker: 'Alice', text: '我对花生过敏，所以不能吃花生酱。', reaction: '好的，我会记住的。', query: 'Alice对什么过敏？', expected: ['花生'] },
  { id: 'bob-sister', day: 2, speaker: 'Bob', text: '我姐姐克拉拉六月在杭州结婚。', reaction: '在杭州办婚礼一定很美。', query: 'Bob的姐姐在哪里结婚？', expected: ['杭州', '克拉拉'] },
  { id: 'alice-cat', day: 3, speaker: 'Alice', text: '我昨天领养了一只灰色的猫，给她取名叫小灰。', reaction: '小灰！快发张照片。', query: 'Alice的猫叫什么？', expected: ['小灰'] },
  { id: 'trip-hotel', day: 3, speaker: 'Bob', text: '我帮你订了锦江宾馆，10月12日入住。', reaction: '太感谢了，省了我好多时间。', query: 'Bob帮Alice订了哪家酒店？', expected: ['锦江宾馆'] },
  { id: 'alice-dish', day: 3, speaker: 'Alice', text: '我最喜欢的菜是麻婆豆腐，每个周日都做。', reaction: '哪天我也想尝尝。', query: 'Alice最喜欢的菜是什么？', expected: ['麻婆豆腐'] },
];

const smallTalkEn = [
  'haha', 'lol', 'ok', 'sounds good', 'morning!', 'how was your morning?', 'pretty busy so far', 'I need more coffee',
  'brb, meeting', 'back', 'did you see the game last night?', 'no, I fell asleep early', 'traffic was terrible today',
  'what are you having for lunch?', 'just a sandwich', 'the weather is nice today', 'it might rain later', 'true',
  'same here', 'that is funny', 'any plans for tonight?', 'probably just a movie', 'which one?', 'not sure yet',
  'my laptop is so slow today', 'have you tried turning it off and on again?', 'classic', 'anyway', 'yeah',
  'I am so tired', 'me too', 'good night', 'see you tomorrow', 'cool', 'nice', 'hmm', 'wait what', 'never mind',
];

const smallTalkZh = [
  '哈哈', '哈哈哈', '好的', '嗯嗯', '早上好！', '今天上午怎么样？', '有点忙', '我还需要一杯咖啡', '先去开个会', '回来了',
  '昨晚的比赛看了吗？', '没有，我睡得早', '今天路上好堵', '中午吃什么？', '随便吃个三明治', '今天天气不错', '下午可能下雨',
  '是啊', '我也是', '太好笑了', '晚上有什么安排？', '可能看个电影', '哪一部？', '还没想好', '电脑今天好卡', '重启试试？',
  '经典', '总之', '好累啊', '晚安', '明天见', '不错', '嗯', '等等，什么？', '算了',
];

/** The facts of a language, in the order they are told. */
export const factLines = (language: Language): readonly FactLine[] => (language === 'zh' ? zh : en);

/** The small talk of a language; none of it states a fact. */
export const smallTalk = (language: Language): readonly string[] => (language === 'zh' ? smallTalkZh : smallTalkEn);
