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
  isLive: boolean;
  isActive: boolean;
  markets: Array<{ title: string; ammLiquidity: string }>;
}

export const DEMO_MARKER_ID = "demo-catalog:v1";

export const demoEventId = (slug: string): string => `evt_demo_${slug}`;
export const demoMarketId = (slug: string, index: number): string => `mkt_demo_${slug}_${index + 1}`;
export const demoImageUrl = (slug: string): string => `https://cdn.pmx.example/events/${slug.replace(/_/g, "-")}.jpg`;

/** 1,000 and 500 USDT of AMM seed liquidity, in micro-units. */
const DEEP = "1000000000";
const THIN = "500000000";

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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Boston Celtics win the NBA Finals", ammLiquidity: DEEP },
      { title: "Oklahoma City Thunder win the NBA Finals", ammLiquidity: DEEP },
      { title: "The Finals go to Game 7", ammLiquidity: THIN },
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
    isLive: true,
    isActive: true,
    markets: [
      { title: "Arsenal win", ammLiquidity: DEEP },
      { title: "Both teams score", ammLiquidity: THIN },
      { title: "More than 2.5 goals", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "BTC closes the year above $150,000", ammLiquidity: DEEP },
      { title: "BTC closes the year above $100,000", ammLiquidity: DEEP },
      { title: "BTC closes the year below $60,000", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [{ title: "ETH trades above $5,000 before the quarter ends", ammLiquidity: DEEP }],
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Toncoin above $10 by December 31", ammLiquidity: THIN },
      { title: "Telegram Wallet passes 100 million users", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Democrats win the House", ammLiquidity: DEEP },
      { title: "Republicans keep the Senate", ammLiquidity: DEEP },
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
    isLive: false,
    isActive: true,
    markets: [{ title: "The amendments pass in the first plenary vote", ammLiquidity: THIN }],
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Team Vitality win the Major", ammLiquidity: DEEP },
      { title: "NAVI reach the grand final", ammLiquidity: THIN },
      { title: "The grand final goes to a fifth map", ammLiquidity: THIN },
      { title: "A team from the open qualifier reaches the playoffs", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "T1 win Worlds", ammLiquidity: DEEP },
      { title: "An LCK team wins Worlds", ammLiquidity: DEEP },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "A non-English-language film wins Best Picture", ammLiquidity: THIN },
      { title: "The Best Picture winner also wins Best Director", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Sweden wins Eurovision", ammLiquidity: THIN },
      { title: "The winner scores more than 500 points", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "The Fed cuts rates by 25 bp", ammLiquidity: DEEP },
      { title: "The Fed holds rates steady", ammLiquidity: DEEP },
      { title: "The Fed cuts by 50 bp or more", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [{ title: "Headline CPI above 3.0% year over year", ammLiquidity: THIN }],
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
    isLive: true,
    isActive: true,
    markets: [
      { title: "Starship completes a full orbit this year", ammLiquidity: THIN },
      { title: "The Super Heavy booster is caught on the next flight", ammLiquidity: THIN },
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
    isLive: false,
    isActive: true,
    markets: [
      { title: "Apple announces a foldable iPhone", ammLiquidity: THIN },
      { title: "Apple announces a new Siri built on a partner's AI model", ammLiquidity: THIN },
    ],
  },
];
