import type { Category } from "../models/catalog";

/**
 * The demo catalog loaded on a fresh deployment when SEED_DEMO is not "false". Ids are derived
 * from the slugs, so seeding twice (a restart, or two nodes at once) inserts nothing new.
 */
export interface DemoEvent {
  slug: string;
  externalEventId: string;
  title: string;
  subtitle: string;
  category: Category;
  subcategory: string;
  tags: string[];
  /** Days from the seeding moment; negative = already under way. */
  beginInDays: number;
  /** Days from the seeding moment to its markets' close time (trading stops then; days to months ahead). */
  closeInDays: number;
  isLive: boolean;
  isActive: boolean;
  /** One winner at most among the markets (a race); `exhaustive`: exactly one. */
  mutuallyExclusive?: boolean;
  exhaustive?: boolean;
  /** One AMM across a race's outcomes (micro-USDT). */
  ammLiquidity?: string;
  markets: DemoMarket[];
}

export interface DemoMarket {
  title: string;
  ammLiquidity: string;
  outcomeLabel?: string;
  /** Where the house maker opens the market: its YES price in ticks (cents). */
  price: number;
}

/** v2: the races; a store seeded with v1 gets them on its next start (the rest is there already). */
export const DEMO_MARKER_ID = "demo-catalog:v2";

export const demoEventId = (slug: string): string => `evt_demo_${slug}`;
export const demoMarketId = (slug: string, index: number): string => `mkt_demo_${slug}_${index + 1}`;
export const demoImageUrl = (slug: string): string => `https://cdn.pmx.example/events/${slug.replace(/_/g, "-")}.jpg`;

/** 1,000 and 500 USDT of AMM seed liquidity, in micro-units. */
const DEEP = "1000000000";
const THIN = "500000000";

/** A race's outcome: no pool of its own (the event has one across its outcomes). */
function race(title: string, outcomeLabel: string, price: number): DemoMarket {
  return { title, outcomeLabel, ammLiquidity: "0", price };
}

export const DEMO_EVENTS: DemoEvent[] = [
  {
    slug: "nba_finals",
    externalEventId: "demo:sports:nba-finals",
    title: "NBA Finals",
    subtitle: "Who lifts the Larry O'Brien Trophy this June?",
    category: "Sports",
    subcategory: "Basketball",
    tags: ["nba", "basketball", "finals"],
    beginInDays: 40,
    closeInDays: 75,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Boston Celtics win the NBA Finals", ammLiquidity: DEEP, price: 34 },
      { title: "Oklahoma City Thunder win the NBA Finals", ammLiquidity: DEEP, price: 27 },
      { title: "The Finals go to Game 7", ammLiquidity: THIN, price: 41 },
    ],
  },
  {
    slug: "arsenal_chelsea",
    externalEventId: "demo:sports:epl-ars-che",
    title: "Premier League: Arsenal vs Chelsea",
    subtitle: "London derby at the Emirates Stadium",
    category: "Sports",
    subcategory: "Football",
    tags: ["football", "soccer", "premier league", "arsenal", "chelsea"],
    beginInDays: 0,
    closeInDays: 2,
    isLive: true,
    isActive: true,
    markets: [
      { title: "Arsenal win", ammLiquidity: DEEP, price: 58 },
      { title: "Both teams score", ammLiquidity: THIN, price: 64 },
      { title: "More than 2.5 goals", ammLiquidity: THIN, price: 55 },
    ],
  },
  {
    slug: "btc_year_end",
    externalEventId: "demo:crypto:btc-eoy",
    title: "Bitcoin price at year end",
    subtitle: "BTC/USD on the last trading day of the year, Coinbase close",
    category: "Crypto",
    subcategory: "Bitcoin",
    tags: ["bitcoin", "btc", "price"],
    beginInDays: -30,
    closeInDays: 34,
    isLive: false,
    isActive: true,
    markets: [
      { title: "BTC closes the year above $150,000", ammLiquidity: DEEP, price: 22 },
      { title: "BTC closes the year above $100,000", ammLiquidity: DEEP, price: 71 },
      { title: "BTC closes the year below $60,000", ammLiquidity: THIN, price: 9 },
    ],
  },
  {
    slug: "eth_staking",
    externalEventId: "demo:crypto:eth-q4",
    title: "Ethereum above $5,000 this quarter?",
    subtitle: "Any trade at or above $5,000 on a major spot exchange",
    category: "Crypto",
    subcategory: "Ethereum",
    tags: ["ethereum", "eth", "price"],
    beginInDays: -10,
    closeInDays: 45,
    isLive: false,
    isActive: true,
    markets: [{ title: "ETH trades above $5,000 before the quarter ends", ammLiquidity: DEEP, price: 36 }],
  },
  {
    slug: "ton_milestones",
    externalEventId: "demo:crypto:ton-2026",
    title: "TON ecosystem milestones",
    subtitle: "Toncoin price and Telegram wallet adoption this year",
    category: "Crypto",
    subcategory: "TON",
    tags: ["ton", "toncoin", "telegram"],
    beginInDays: -60,
    closeInDays: 120,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Toncoin above $10 by December 31", ammLiquidity: THIN, price: 14 },
      { title: "Telegram Wallet passes 100 million users", ammLiquidity: THIN, price: 47 },
    ],
  },
  {
    slug: "us_midterms",
    externalEventId: "demo:politics:us-midterms-2026",
    title: "US midterm elections 2026",
    subtitle: "Control of Congress after the November vote",
    category: "Politics",
    subcategory: "US elections",
    tags: ["election", "congress", "usa"],
    beginInDays: 200,
    closeInDays: 201,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Democrats win the House", ammLiquidity: DEEP, price: 62 },
      { title: "Republicans keep the Senate", ammLiquidity: DEEP, price: 68 },
    ],
  },
  {
    slug: "eu_parliament_vote",
    externalEventId: "demo:politics:eu-ai-act",
    title: "EU AI Act amendments pass Parliament",
    subtitle: "Plenary vote on the simplification package",
    category: "Politics",
    subcategory: "European Union",
    tags: ["eu", "parliament", "regulation", "ai"],
    beginInDays: 21,
    closeInDays: 22,
    isLive: false,
    isActive: true,
    markets: [{ title: "The amendments pass in the first plenary vote", ammLiquidity: THIN, price: 57 }],
  },
  {
    slug: "cs2_major",
    externalEventId: "demo:esports:cs2-major",
    title: "CS2 Major Championship",
    subtitle: "Counter-Strike 2's biggest tournament of the season",
    category: "E-sports",
    subcategory: "Counter-Strike",
    tags: ["cs2", "counter-strike", "major"],
    beginInDays: 14,
    closeInDays: 24,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Team Vitality win the Major", ammLiquidity: DEEP, price: 31 },
      { title: "NAVI reach the grand final", ammLiquidity: THIN, price: 44 },
      { title: "The grand final goes to a fifth map", ammLiquidity: THIN, price: 38 },
      { title: "A team from the open qualifier reaches the playoffs", ammLiquidity: THIN, price: 17 },
    ],
  },
  {
    slug: "lol_worlds",
    externalEventId: "demo:esports:lol-worlds",
    title: "League of Legends World Championship",
    subtitle: "Worlds knockout stage",
    category: "E-sports",
    subcategory: "League of Legends",
    tags: ["lol", "league of legends", "worlds", "t1"],
    beginInDays: 120,
    closeInDays: 150,
    isLive: false,
    isActive: true,
    markets: [
      { title: "T1 win Worlds", ammLiquidity: DEEP, price: 33 },
      { title: "An LCK team wins Worlds", ammLiquidity: DEEP, price: 61 },
    ],
  },
  {
    slug: "best_picture",
    externalEventId: "demo:culture:oscars-best-picture",
    title: "Academy Awards: Best Picture",
    subtitle: "Which nominee takes the top prize at the Oscars?",
    category: "Culture",
    subcategory: "Film",
    tags: ["oscars", "film", "awards"],
    beginInDays: 90,
    closeInDays: 91,
    isLive: false,
    isActive: true,
    markets: [
      { title: "A non-English-language film wins Best Picture", ammLiquidity: THIN, price: 19 },
      { title: "The Best Picture winner also wins Best Director", ammLiquidity: THIN, price: 72 },
    ],
  },
  {
    slug: "eurovision",
    externalEventId: "demo:culture:eurovision",
    title: "Eurovision Song Contest",
    subtitle: "Grand final, televote and jury combined",
    category: "Culture",
    subcategory: "Music",
    tags: ["eurovision", "music", "contest"],
    beginInDays: 60,
    closeInDays: 61,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Sweden wins Eurovision", ammLiquidity: THIN, price: 12 },
      { title: "The winner scores more than 500 points", ammLiquidity: THIN, price: 45 },
    ],
  },
  {
    slug: "fomc_decision",
    externalEventId: "demo:economics:fomc-next",
    title: "Fed interest rate decision",
    subtitle: "Outcome of the next FOMC meeting",
    category: "Economics",
    subcategory: "Central banks",
    tags: ["fed", "fomc", "interest rates", "usa"],
    beginInDays: 18,
    closeInDays: 19,
    isLive: false,
    isActive: true,
    markets: [
      { title: "The Fed cuts rates by 25 bp", ammLiquidity: DEEP, price: 63 },
      { title: "The Fed holds rates steady", ammLiquidity: DEEP, price: 28 },
      { title: "The Fed cuts by 50 bp or more", ammLiquidity: THIN, price: 9 },
    ],
  },
  {
    slug: "us_cpi",
    externalEventId: "demo:economics:us-cpi",
    title: "US inflation above 3%?",
    subtitle: "Year-over-year CPI in the next BLS release",
    category: "Economics",
    subcategory: "Inflation",
    tags: ["cpi", "inflation", "usa"],
    beginInDays: 9,
    closeInDays: 10,
    isLive: false,
    isActive: true,
    markets: [{ title: "Headline CPI above 3.0% year over year", ammLiquidity: THIN, price: 42 }],
  },
  {
    slug: "starship_orbit",
    externalEventId: "demo:tech:starship-orbit",
    title: "SpaceX Starship reaches orbit",
    subtitle: "A full orbital flight of the Starship upper stage",
    category: "Tech",
    subcategory: "Space",
    tags: ["spacex", "starship", "space"],
    beginInDays: -5,
    closeInDays: 30,
    isLive: true,
    isActive: true,
    markets: [
      { title: "Starship completes a full orbit this year", ammLiquidity: THIN, price: 52 },
      { title: "The Super Heavy booster is caught on the next flight", ammLiquidity: THIN, price: 46 },
    ],
  },
  {
    slug: "wwdc",
    externalEventId: "demo:tech:wwdc",
    title: "Apple WWDC keynote",
    subtitle: "What Apple announces at its developer conference",
    category: "Tech",
    subcategory: "Consumer tech",
    tags: ["apple", "wwdc", "ai"],
    beginInDays: 75,
    closeInDays: 76,
    isLive: false,
    isActive: true,
    markets: [
      { title: "Apple announces a foldable iPhone", ammLiquidity: THIN, price: 23 },
      { title: "Apple announces a new Siri built on a partner's AI model", ammLiquidity: THIN, price: 57 },
    ],
  },
  {
    slug: "metropolis_mayor",
    externalEventId: "demo:politics:metropolis-mayor",
    title: "Metropolis mayoral election",
    subtitle: 'Who wins the city\'s mayoral race? One winner, "Other" covers every other candidate',
    category: "Politics",
    subcategory: "Local elections",
    tags: ["election", "mayor", "race"],
    beginInDays: 21,
    closeInDays: 22,
    isLive: false,
    isActive: true,
    mutuallyExclusive: true,
    exhaustive: true,
    ammLiquidity: DEEP,
    markets: [
      race("Will Maria Alvarez win the mayoral election?", "Maria Alvarez", 38),
      race("Will James Okafor win the mayoral election?", "James Okafor", 27),
      race("Will Chen Wei win the mayoral election?", "Chen Wei", 15),
      race("Will Sofia Rossi win the mayoral election?", "Sofia Rossi", 9),
      race("Will David Cohen win the mayoral election?", "David Cohen", 6),
      race("Will another candidate win the mayoral election?", "Other", 5),
    ],
  },
  {
    slug: "league_title",
    externalEventId: "demo:sports:league-title",
    title: "Premier League title race",
    subtitle: "Which club finishes top of the table this season?",
    category: "Sports",
    subcategory: "Football",
    tags: ["football", "soccer", "premier league", "race"],
    beginInDays: 120,
    closeInDays: 150,
    isLive: false,
    isActive: true,
    mutuallyExclusive: true,
    ammLiquidity: DEEP,
    markets: [
      race("Will Arsenal win the Premier League?", "Arsenal", 30),
      race("Will Liverpool win the Premier League?", "Liverpool", 23),
      race("Will Manchester City win the Premier League?", "Manchester City", 19),
      race("Will Chelsea win the Premier League?", "Chelsea", 9),
      race("Will Newcastle United win the Premier League?", "Newcastle United", 6),
      race("Will Aston Villa win the Premier League?", "Aston Villa", 4),
      race("Will Tottenham Hotspur win the Premier League?", "Tottenham Hotspur", 3),
      race("Will Manchester United win the Premier League?", "Manchester United", 3),
    ],
  },
];
