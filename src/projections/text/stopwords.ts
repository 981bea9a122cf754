/**
 * Stop words, compared after NFKC and lowercasing. Changing either list changes the tokens, so
 * it needs a new version of every projection that stores tokens (`fts`).
 */

/** English function words (close to the NLTK list), dropped before stemming. */
export const englishStopWords: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself nor of off on once only or other our ours ourselves out over own same she should so some
  such than that the their theirs them themselves then there these they this those through to too
  under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won
  wouldn shouldn couldn`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/** Chinese function words and particles, dropped from jieba's words and from the bigrams. */
export const chineseStopWords: ReadonlySet<string> = new Set(
  `的 了 着 过 和 与 及 或 而 并 且 是 在 于 为 被 把 将 对 从 向 以 由 给 让 就 都 也 还 又 才 很 太
  吗 呢 吧 啊 呀 哦 嗯 哈 啦 嘛 么 之 其 此 这 那 哪 个 些 我 你 您 他 她 它 我们 你们 他们 她们 它们
  咱们 自己 这个 那个 这些 那些 这里 那里 这样 那样 什么 怎么 怎样 为什么 因为 所以 但是 可是 然而
  而且 并且 或者 如果 虽然 即使 只是 还是 就是 不过 然后 一个 一些 已经 曾经 正在 一直 非常 比较
  可以 可能 应该 需要 没有 不是 有些 有点 所有 每个 以及 对于 关于 通过 根据 按照 除了 其中 其他`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/**
 * A Chinese stop word: one of the list, or a word made only of the list's single characters
 * (我的 = 我 + 的, 为了): jieba keeps such compounds whole, and they carry no more meaning
 * than their parts. English drops "my" and "your"; without this, 我的 matched half of all notes.
 */
export function isChineseStopWord(word: string): boolean {
  if (chineseStopWords.has(word)) return true;
  const chars = [...word];
  return chars.length > 1 && chars.every((c) => chineseStopWords.has(c));
}
