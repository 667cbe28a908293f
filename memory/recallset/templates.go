package recallset

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// factTemplate is a kind of fact: the turns that state it ({S} says them;
// one, or two for multi-hop and update), the other speaker's reply, and
// ways to ask about it later. Slots in braces take values from pools.
type factTemplate struct {
	category  string
	says      []string
	reply     string
	questions []string
}

// fact is a template with its slots filled.
type fact struct {
	says     []string
	reply    string
	question string
}

func (ft factTemplate) make(r *rand.Rand, vals map[string]string) fact {
	f := fact{reply: expand(ft.reply, vals), question: expand(ft.questions[r.IntN(len(ft.questions))], vals)}
	for _, s := range ft.says {
		f.says = append(f.says, expand(s, vals))
	}
	return f
}

// factTemplates come in pairs of one category; Generate gives the first
// of each pair to Tune and the second to Measure. Questions avoid the
// statement's words where people would: other word forms, synonyms, the
// thing instead of its name.
var factTemplates = []factTemplate{
	{"single", []string{"We finally adopted a {breed} puppy last month, and {petname} already chews every shoe in the house."},
		"Oh no, the shoes! {petname} sounds adorable though.",
		[]string{"What is the name of {S}'s dog?", "What did {S} call the new pet?"}},
	{"single", []string{"I've been learning to bake sourdough, my starter is named {petname} and it lives on top of the fridge."},
		"Ha, you named the starter? Send me a loaf sometime.",
		[]string{"What does {S} call the bread starter?", "What name did {S} give to the sourdough culture?"}},

	{"single", []string{"Big news: I accepted an offer as a {job} at {company}, I start after the holidays."},
		"Congratulations, that's huge! They're lucky to have you.",
		[]string{"Which company hired {S}?", "Where is {S} going to be employed?"}},
	{"single", []string{"My brother just got promoted to {job} at {company}, we're all so proud of him."},
		"Tell him congratulations from me!",
		[]string{"What position does {S}'s brother hold now?", "What job was {S}'s sibling promoted into?"}},

	{"single", []string{"I signed up for {instrument} classes at the community center, Thursday evenings."},
		"That's great, I always wanted to play something.",
		[]string{"Which musical instrument is {S} studying?", "What instrument lessons did {S} enrol in?"}},
	{"single", []string{"My daughter picked the {instrument} for the school orchestra, the practicing is loud."},
		"Ha, earplugs! Good for her though.",
		[]string{"What does {S}'s kid play in the orchestra?", "Which instrument did {S}'s daughter choose?"}},

	{"single", []string{"Honestly my favourite comfort food is {dish}, my grandmother made it every Sunday."},
		"That sounds delicious, I'd love the recipe.",
		[]string{"What meal reminds {S} of their grandma?", "Which dish does {S} like best when they need comfort?"}},
	{"single", []string{"I'm allergic to {allergen}, so I always ask the waiter twice before ordering."},
		"That must be stressful when eating out.",
		[]string{"What allergy does {S} have?", "Which food can {S} not eat?"}},

	{"single", []string{"I just finished reading {book} by {author}, I couldn't put it down."},
		"Ooh, is it worth it? I need something for my trip.",
		[]string{"Which novel did {S} read recently?", "Who wrote the book {S} finished?"}},
	{"single", []string{"For my book club we're reading {book} next, {author} is the author everyone keeps recommending."},
		"Let me know what the club thinks of it.",
		[]string{"What is {S}'s reading group reading next?", "Which title did {S}'s book club pick?"}},

	{"temporal", []string{"Last {day} I ran my first {race}, my legs are still sore."},
		"Wow, you did it! How long did it take?",
		[]string{"When did {S} complete the {race}?", "On which day did {S} run the first {race}?"}},
	{"temporal", []string{"I passed my driving test on {day}, third try, finally!"},
		"Third time's the charm! Where will you drive first?",
		[]string{"When did {S} get the driver's license?", "On what day did {S} pass the driving exam?"}},

	{"temporal", []string{"We're flying to {city} in {month} for my cousin's wedding."},
		"Weddings are the best excuse to travel.",
		[]string{"When is {S} travelling for the wedding?", "In which month is the cousin's wedding {S} will attend?"}},
	{"temporal", []string{"My surgery is scheduled for early {month}, the doctor says recovery takes two weeks."},
		"I hope it goes smoothly, let me know if you need anything.",
		[]string{"When is {S}'s operation?", "In what month will {S} have surgery?"}},

	{"temporal", []string{"Back in {year} I volunteered at a shelter in {city}, that's where I met my wife."},
		"That's such a lovely way to meet.",
		[]string{"When did {S} meet their wife?", "In which year did {S} volunteer at the shelter?"}},
	{"temporal", []string{"I got my first {vehicle} the summer I turned sixteen, in {year}."},
		"Classic! Do you still have it?",
		[]string{"When did {S} buy the first {vehicle}?", "What year did {S} get a {vehicle} for the first time?"}},

	{"multi", []string{"My sister {relname} moved to {city} last year for her job.", "I'm visiting my sister next month, I already booked the train."},
		"Nice, say hi for me!",
		[]string{"Which city is {S} going to visit next month?", "Where will {S} travel to see family?"}},
	{"multi", []string{"My best friend {relname} opened a bakery in {city}.", "I'm going to help my best friend at the bakery over the long weekend."},
		"That's so kind of you.",
		[]string{"In which city will {S} spend the long weekend?", "Where is the shop {S} will help at over the weekend?"}},

	{"multi", []string{"Our team lead {relname} only drinks {drink}.", "I'm buying a gift for our team lead's farewell party."},
		"Good idea, everyone will sign the card.",
		[]string{"What drink should {S} buy as the farewell present?", "What does the person {S} is buying a present for like to drink?"}},
	{"multi", []string{"My uncle {relname} collects {collectible}.", "My uncle's seventieth birthday is coming up and I have no idea what to get."},
		"Seventy, wow. Something for his hobby?",
		[]string{"What could {S} give the uncle for his birthday?", "What kind of present would suit {S}'s uncle?"}},

	{"update", []string{"We live in {city} now, right near the river.", "We just moved again, to {city2}, the boxes are everywhere."},
		"Moving is exhausting, good luck unpacking!",
		[]string{"Where does {S} live now?", "Which city is {S}'s current home?"}},
	{"update", []string{"I drive a {color} {car} to work every day.", "I sold the old car and bought a {color2} {car2} yesterday."},
		"Nice upgrade!",
		[]string{"What vehicle does {S} drive these days?", "What car does {S} currently own?"}},

	{"update", []string{"I'm training for the {race} with a coach named {relname}.", "I switched coaches, {relname2} is training me now."},
		"New coach, new energy!",
		[]string{"Who is {S}'s current coach?", "Who trains {S} at the moment?"}},
	{"update", []string{"My phone number changed, it ends in {number} now.", "Ugh, new phone number again, the last four digits are {number2}."},
		"I'll update my contacts.",
		[]string{"What are the final digits of {S}'s latest number?", "What does {S}'s phone number end with these days?"}},
}

// replies answer the second statement of a pair.
var replies = []string{
	"Sounds like a plan.", "Keep me posted!", "Oh nice, that's exciting.", "Good luck with it, {S}.", "Let me know how it goes.",
}

// smallTalk fills a conversation between the facts; it reuses their words
// so that word overlap alone misleads. Like factTemplates, even entries
// go to Tune and odd ones to Measure.
var smallTalk = []string{
	"How was your weekend, {O}? Mine was mostly laundry.",
	"Did you see the game last night? Unbelievable ending.",
	"My neighbour's {breed} barked all night again.",
	"The {breed} at the park today tried to steal my sandwich.",
	"Work is crazy this week, I barely had time to eat.",
	"I'm so tired, the {job} meeting ran two hours over.",
	"We ordered {dish} for dinner, it was okay.",
	"Someone at {company} brought {dish} to the office potluck.",
	"I keep meaning to read more, maybe {author} is a good start.",
	"The library had a display about {author} this week.",
	"The weather in {city} looks awful this week.",
	"A friend sent me photos from {city}, it looks beautiful.",
	"I heard someone playing {instrument} on the street today.",
	"There's a {instrument} concert in the park on {day}.",
	"My car made a weird noise on the highway, {O}.",
	"The traffic near the {vehicle} dealership was a nightmare.",
	"Have you tried that new coffee place on Main Street?",
	"I drank way too much {drink} at the party.",
	"My {relative} keeps sending me memes at 6 am.",
	"I should call my {relative} more often.",
	"Running in this heat is impossible, I gave up after a mile.",
	"They're organising a {race} downtown in {month}, the roads will be closed.",
	"I finally cleaned the garage, found so much junk.",
	"Do you still have that {color} jacket? I saw one just like it.",
	"I can't believe it's already {month}.",
	"My phone battery dies by noon every day now.",
	"We watched a documentary about {collectible} collectors, so niche.",
	"Thanks for listening, {O}, it really helps.",
	"What are you doing on {day}? Want to grab lunch?",
	"I'm thinking about taking a class, something creative.",
	"The kids' school has a bake sale on {day}.",
	"Haha, that's so you, {O}.",
}

// pools hold the values of each slot.
var pools = map[string][]string{
	"breed":       {"beagle", "labrador", "corgi", "poodle", "greyhound", "husky", "dachshund", "collie"},
	"petname":     {"Biscuit", "Rufus", "Pepper", "Mochi", "Ziggy", "Olive", "Waffles", "Bruno", "Nugget", "Luna"},
	"job":         {"data analyst", "nurse", "product manager", "architect", "pharmacist", "teacher", "electrician", "paralegal"},
	"company":     {"Northwind", "Globex", "Initech", "Umbrella Health", "Stark Labs", "Acme Foods", "Vandelay Imports", "Hooli"},
	"instrument":  {"cello", "violin", "trumpet", "clarinet", "saxophone", "ukulele", "flute", "harp"},
	"dish":        {"chicken paprikash", "mac and cheese", "lentil soup", "shepherd's pie", "pierogi", "jollof rice", "ramen", "lasagna"},
	"allergen":    {"peanuts", "shellfish", "sesame", "walnuts", "soy", "eggs"},
	"book":        {"The Silent Orchard", "Glass Rivers", "A Map of Salt", "The Last Lighthouse", "Paper Moons", "The Winter Ledger"},
	"author":      {"Mara Linden", "Tomasz Wilk", "Ines Carvalho", "Jonah Reyes", "Priya Nair", "Colm Duffy"},
	"day":         {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"race":        {"marathon", "half marathon", "triathlon", "10k", "ultramarathon"},
	"month":       {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"city":        {"Lisbon", "Denver", "Osaka", "Tucson", "Vilnius", "Halifax", "Porto", "Austin", "Leeds", "Perth"},
	"city2":       {"Boise", "Ghent", "Nagoya", "Raleigh", "Tallinn", "Quebec", "Bilbao", "Madison", "Bristol", "Adelaide"},
	"year":        {"2009", "2011", "2013", "2014", "2016", "2018"},
	"vehicle":     {"motorbike", "pickup truck", "scooter", "convertible"},
	"relname":     {"Dana", "Marcus", "Ingrid", "Tobias", "Leila", "Ravi", "Noor", "Felix"},
	"relname2":    {"Sasha", "Hugo", "Amara", "Dmitri", "Yara", "Bram"},
	"drink":       {"oolong tea", "single malt whisky", "cold brew", "kombucha", "ginger ale", "rooibos"},
	"collectible": {"vintage stamps", "model trains", "vinyl records", "antique clocks", "old maps", "fountain pens"},
	"color":       {"red", "blue", "silver", "green", "white"},
	"color2":      {"black", "yellow", "grey", "orange", "maroon"},
	"car":         {"Honda Civic", "Subaru Outback", "Ford Focus", "Toyota Corolla"},
	"car2":        {"Mazda CX-5", "Volvo V60", "Kia Niro", "Tesla Model 3"},
	"number":      {"4417", "2093", "8861", "3302"},
	"number2":     {"5528", "7140", "9306", "1685"},
	"relative":    {"mum", "dad", "aunt", "grandpa", "cousin", "sister"},
}

// firstNames are the speakers.
var firstNames = []string{"Caroline", "Melanie", "Jon", "Gina", "Andrew", "Audrey", "Tim", "John", "Evan", "Sam", "Nate", "Joanna", "Maria", "Deborah", "Calvin", "Dave"}

// slotValues draws one value for every slot.
func slotValues(r *rand.Rand) map[string]string {
	vals := make(map[string]string, len(pools))
	for _, k := range poolKeys {
		p := pools[k]
		vals[k] = p[r.IntN(len(p))]
	}
	return vals
}

// poolKeys are the pools' names in a fixed order, so that draws repeat.
var poolKeys = func() []string {
	keys := make([]string, 0, len(pools))
	for k := range pools {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}()

// expand replaces each {slot} of text with its value; {S} and {O} stay
// for fill.
func expand(text string, vals map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		key := text[i+1 : i+j]
		b.WriteString(text[:i])
		if v, ok := vals[key]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(text[i : i+j+1])
		}
		text = text[i+j+1:]
	}
}
