import nodejieba from 'nodejieba';
import { describe, expect, it } from 'vitest';
import { toFtsDocument, toFtsQuery, tokenize } from '../src/projections/text/tokenizer.js';

describe('tokenizer: Chinese', () => {
  it('gives jieba words and character bigrams of the same run', () => {
    const text = '我们明天去南京市长江大桥散步';
    expect(nodejieba.cut(text)).toContain('长江大桥');
    const tokens = tokenize(text);
    // jieba's words of more than two characters, which no bigram gives
    expect(tokens).toEqual(expect.arrayContaining(['长江大桥', '南京市']));
    // bigrams, including ones that cross jieba's word boundaries
    expect(tokens).toEqual(expect.arrayContaining(['长江', '江大', '大桥', '市长', '桥散', '散步']));
  });

  it('does not assume whitespace: an unspaced sentence is segmented', () => {
    const tokens = tokenize('我喜欢喝绿茶');
    expect(tokens).toEqual(expect.arrayContaining(['喜欢', '绿茶']));
    expect(tokens).not.toContain('我喜欢喝绿茶');
  });

  it('drops Chinese stop words, from jieba words and from bigrams', () => {
    const tokens = tokenize('我们的记忆');
    expect(tokens).toContain('记忆');
    expect(tokens).not.toContain('我们');
    expect(tokens).not.toContain('的');
  });

  it('a one-character run gives that character; a two-character word is not given twice', () => {
    expect(tokenize('茶')).toEqual(['茶']);
    expect(tokenize('绿茶')).toEqual(['绿茶']);
  });

  it('a query cut differently by jieba still shares a bigram with the memory', () => {
    expect(nodejieba.cut('记忆系统')).toEqual(['记忆系统']);
    expect(tokenize('记忆系统')).toContain('记忆');
  });

  it('kana and Hangul runs give bigrams too', () => {
    expect(tokenize('東京タワー')).toEqual(expect.arrayContaining(['東京', 'タワ', 'ワー']));
    expect(tokenize('한국어')).toEqual(expect.arrayContaining(['한국', '국어']));
  });
});

describe('tokenizer: English and other letters', () => {
  it('stems, so "memories" and "memory" give the same token', () => {
    expect(tokenize('memories')).toEqual(tokenize('memory'));
    expect(tokenize('remembered')).toEqual(tokenize('remember'));
    expect(tokenize('memories')).toHaveLength(1);
  });

  it('drops stop words before stemming', () => {
    expect(tokenize('The cat and the hat were there')).toEqual(['cat', 'hat']);
    expect(tokenize('the and of')).toEqual([]);
  });

  it('NFKC-normalises and lowercases', () => {
    expect(tokenize('ＡＬＩＣＥ Tea')).toEqual(tokenize('alice tea'));
    expect(tokenize('ＡＬＩＣＥ')).toEqual(['alic']);
    expect(tokenize('café')).toEqual(tokenize('cafe\u0301'));
  });

  it('splits on punctuation and keeps digits', () => {
    expect(tokenize('tea,coffee;2024')).toEqual(['tea', 'coffe', '2024']);
  });
});

describe('tokenizer: mixed text and FTS strings', () => {
  it('splits Latin from CJK without spaces and handles each its own way', () => {
    const tokens = tokenize('Alice喜欢喝绿茶every morning，2024年');
    expect(tokens).toEqual(expect.arrayContaining(['alic', '喜欢', '绿茶', 'everi', 'morn', '2024', '年']));
    expect(tokens.some((t) => /[a-z]/.test(t) && /\p{Script=Han}/u.test(t))).toBe(false);
  });

  it('is deterministic', () => {
    const text = 'Bob remembered 我们明天去南京市长江大桥散步 and 記憶';
    expect(tokenize(text)).toEqual(tokenize(text));
  });

  it('toFtsDocument joins the tokens with spaces', () => {
    expect(toFtsDocument('The memories of 绿茶')).toBe('memori 绿茶');
  });

  it('toFtsQuery quotes distinct tokens joined with OR, and is null without tokens', () => {
    expect(toFtsQuery('memory memories "tea"')).toBe('"memori" OR "tea"');
    expect(toFtsQuery('the, and!')).toBeNull();
    expect(toFtsQuery('   ')).toBeNull();
    expect(toFtsQuery('NEAR(x* "y"')).toBe('"near" OR "x" OR "y"');
  });
});
