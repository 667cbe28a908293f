package recallset

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// factTemplate is a kind of fact: the turns that state it ({S} says them;
// one, or two for multi-hop and update), the other speaker's reply, and
// ways to ask about it later. Slots in braces take values from pools. A
// template with ask states its fact as the answer to the other speaker's
// question, the turn before it: the later question uses the asking
// turn's words, as people do, and only the answer is evidence.
type factTemplate struct {
	category  string
	says      []string
	reply     string
	questions []string
	ask       string
}

// fact is a template with its slots filled.
type fact struct {
	ask      string
	says     []string
	reply    string
	question string
}

// stated is a template whose fact the speaker states unasked in says.
func stated(category string, says []string, reply string, questions []string) factTemplate {
	return factTemplate{category: category, says: says, reply: reply, questions: questions}
}

// asked is a template whose fact, said, answers the other speaker's
// question ask.
func asked(category, ask, said, reply string, questions []string) factTemplate {
	return factTemplate{category: category, says: []string{said}, reply: reply, questions: questions, ask: ask}
}

func (ft factTemplate) make(r *rand.Rand, vals map[string]string) fact {
	f := fact{ask: expand(ft.ask, vals), reply: expand(ft.reply, vals), question: expand(ft.questions[r.IntN(len(ft.questions))], vals)}
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
	stated("single", []string{"We finally adopted a {breed} puppy last month, and {petname} already chews every shoe in the house."},
		"Oh no, the shoes! {petname} sounds adorable though.",
		[]string{"What is the name of {S}'s dog?", "What did {S} call the new pet?"}),
	stated("single", []string{"I've been learning to bake sourdough, my starter is named {petname} and it lives on top of the fridge."},
		"Ha, you named the starter? Send me a loaf sometime.",
		[]string{"What does {S} call the bread starter?", "What name did {S} give to the sourdough culture?"}),

	stated("single", []string{"Big news: I accepted an offer as a {job} at {company}, I start after the holidays."},
		"Congratulations, that's huge! They're lucky to have you.",
		[]string{"Which company hired {S}?", "Where is {S} going to be employed?"}),
	stated("single", []string{"My brother just got promoted to {job} at {company}, we're all so proud of him."},
		"Tell him congratulations from me!",
		[]string{"What position does {S}'s brother hold now?", "What job was {S}'s sibling promoted into?"}),

	stated("single", []string{"I signed up for {instrument} classes at the community center, Thursday evenings."},
		"That's great, I always wanted to play something.",
		[]string{"Which musical instrument is {S} studying?", "What instrument lessons did {S} enrol in?"}),
	stated("single", []string{"My daughter picked the {instrument} for the school orchestra, the practicing is loud."},
		"Ha, earplugs! Good for her though.",
		[]string{"What does {S}'s kid play in the orchestra?", "Which instrument did {S}'s daughter choose?"}),

	stated("single", []string{"Honestly my favourite comfort food is {dish}, my grandmother made it every Sunday."},
		"That sounds delicious, I'd love the recipe.",
		[]string{"What meal reminds {S} of their grandma?", "Which dish does {S} like best when they need comfort?"}),
	stated("single", []string{"I'm allergic to {allergen}, so I always ask the waiter twice before ordering."},
		"That must be stressful when eating out.",
		[]string{"What allergy does {S} have?", "Which food can {S} not eat?"}),

	stated("single", []string{"I just finished reading {book} by {author}, I couldn't put it down."},
		"Ooh, is it worth it? I need something for my trip.",
		[]string{"Which novel did {S} read recently?", "Who wrote the book {S} finished?"}),
	stated("single", []string{"For my book club we're reading {book} next, {author} is the author everyone keeps recommending."},
		"Let me know what the club thinks of it.",
		[]string{"What is {S}'s reading group reading next?", "Which title did {S}'s book club pick?"}),

	stated("temporal", []string{"Last {day} I ran my first {race}, my legs are still sore."},
		"Wow, you did it! How long did it take?",
		[]string{"When did {S} complete the {race}?", "On which day did {S} run the first {race}?"}),
	stated("temporal", []string{"I passed my driving test on {day}, third try, finally!"},
		"Third time's the charm! Where will you drive first?",
		[]string{"When did {S} get the driver's license?", "On what day did {S} pass the driving exam?"}),

	stated("temporal", []string{"We're flying to {city} in {month} for my cousin's wedding."},
		"Weddings are the best excuse to travel.",
		[]string{"When is {S} travelling for the wedding?", "In which month is the cousin's wedding {S} will attend?"}),
	stated("temporal", []string{"My surgery is scheduled for early {month}, the doctor says recovery takes two weeks."},
		"I hope it goes smoothly, let me know if you need anything.",
		[]string{"When is {S}'s operation?", "In what month will {S} have surgery?"}),

	stated("temporal", []string{"Back in {year} I volunteered at a shelter in {city}, that's where I met my wife."},
		"That's such a lovely way to meet.",
		[]string{"When did {S} meet their wife?", "In which year did {S} volunteer at the shelter?"}),
	stated("temporal", []string{"I got my first {vehicle} the summer I turned sixteen, in {year}."},
		"Classic! Do you still have it?",
		[]string{"When did {S} buy the first {vehicle}?", "What year did {S} get a {vehicle} for the first time?"}),

	stated("multi", []string{"My sister {relname} moved to {city} last year for her job.", "I'm visiting my sister next month, I already booked the train."},
		"Nice, say hi for me!",
		[]string{"Which city is {S} going to visit next month?", "Where will {S} travel to see family?"}),
	stated("multi", []string{"My best friend {relname} opened a bakery in {city}.", "I'm going to help my best friend at the bakery over the long weekend."},
		"That's so kind of you.",
		[]string{"In which city will {S} spend the long weekend?", "Where is the shop {S} will help at over the weekend?"}),

	stated("multi", []string{"Our team lead {relname} only drinks {drink}.", "I'm buying a gift for our team lead's farewell party."},
		"Good idea, everyone will sign the card.",
		[]string{"What drink should {S} buy as the farewell present?", "What does the person {S} is buying a present for like to drink?"}),
	stated("multi", []string{"My uncle {relname} collects {collectible}.", "My uncle's seventieth birthday is coming up and I have no idea what to get."},
		"Seventy, wow. Something for his hobby?",
		[]string{"What could {S} give the uncle for his birthday?", "What kind of present would suit {S}'s uncle?"}),

	stated("update", []string{"We live in {city} now, right near the river.", "We just moved again, to {city2}, the boxes are everywhere."},
		"Moving is exhausting, good luck unpacking!",
		[]string{"Where does {S} live now?", "Which city is {S}'s current home?"}),
	stated("update", []string{"I drive a {color} {car} to work every day.", "I sold the old car and bought a {color2} {car2} yesterday."},
		"Nice upgrade!",
		[]string{"What vehicle does {S} drive these days?", "What car does {S} currently own?"}),

	stated("update", []string{"I'm training for the {race} with a coach named {relname}.", "I switched coaches, {relname2} is training me now."},
		"New coach, new energy!",
		[]string{"Who is {S}'s current coach?", "Who trains {S} at the moment?"}),
	stated("update", []string{"My phone number changed, it ends in {number} now.", "Ugh, new phone number again, the last four digits are {number2}."},
		"I'll update my contacts.",
		[]string{"What are the final digits of {S}'s latest number?", "What does {S}'s phone number end with these days?"}),

	asked("single", "{S}, what have you been researching lately? You seem so busy.",
		"Mostly {topic}, it's been on my mind for ages and I finally made a spreadsheet.",
		"A spreadsheet, of course. Keep me in the loop!",
		[]string{"What has {S} been researching?", "What was {S} researching lately?"}),
	asked("single", "So what's the big project you're working on these days, {S}?",
		"Oh, a {furniture} for the garden, out of old pallets. It's nearly done.",
		"Pallets! Send pictures when it's finished.",
		[]string{"What project is {S} working on these days?", "Which big project has {S} been working on?"}),

	asked("single", "Where did you end up going on holiday this year, {S}?",
		"{city}! Three days of museums and far too much street food.",
		"Sounds perfect, I'm jealous.",
		[]string{"Where did {S} go on holiday this year?", "Which place did {S} end up going to on holiday?"}),
	asked("single", "{S}, where are you flying off to this summer?",
		"Heading to {city} with my sister, the flights are finally booked.",
		"Your sister must be thrilled.",
		[]string{"Where is {S} flying off to this summer?", "Which place is {S} flying to this summer?"}),

	asked("single", "What did your parents give you for your birthday, {S}?",
		"A {gift}! I've wanted one for years, I nearly cried.",
		"They know you well.",
		[]string{"What did {S}'s parents give for the birthday?", "What birthday present did {S} get from the parents?"}),
	asked("single", "Any luck finding a hobby to get you off the screen, {S}?",
		"Actually yes, {hobby}, every Saturday morning with a few neighbours.",
		"Good for you, screens are the worst.",
		[]string{"What hobby did {S} find to get off the screen?", "Which hobby keeps {S} away from screens?"}),

	asked("temporal", "When are you finally moving into the new flat, {S}?",
		"Not until {month}, the builders are still painting the kitchen.",
		"Fingers crossed they finish on time.",
		[]string{"When is {S} moving into the new flat?", "In which month is {S} finally moving into the flat?"}),
	asked("temporal", "{S}, when does your new job start?",
		"In {month}, they pushed the start date back twice already.",
		"Twice? That's annoying, but at least you get a break.",
		[]string{"When does {S}'s new job start?", "In which month does {S} start the new job?"}),

	asked("temporal", "What day is the big interview, {S}?",
		"{day} morning at nine, wish me luck.",
		"Good luck, you'll be great.",
		[]string{"When is {S}'s big interview?", "On which day is {S}'s interview?"}),
	asked("temporal", "{S}, when's the housewarming party again?",
		"This {day}, bring snacks if you can, and maybe a chair.",
		"I'll bring chips and a folding chair.",
		[]string{"When is {S}'s housewarming party?", "On what day is {S}'s housewarming?"}),

	asked("single", "What are you naming the baby, {S}? Have you decided?",
		"We settled on {relname2}, after my grandmother.",
		"That's a beautiful name.",
		[]string{"What is {S} naming the baby?", "Which name did {S} decide on for the baby?"}),
	asked("single", "Which team are you supporting in the final, {S}?",
		"{city} all the way, I've had the scarf since I was a kid.",
		"Loyal to the end!",
		[]string{"Which team is {S} supporting in the final?", "Who is {S} supporting in the final?"}),
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
	"I need a holiday so badly, {O}.",
	"Our team lost again on {day}, I stopped watching at half time.",
	"The baby next door cried all night, the poor parents.",
	"My cousin's new job sounds stressful, so many meetings.",
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
	"topic":       {"adoption agencies", "solar panels", "sailing courses", "family history", "electric bikes", "beekeeping"},
	"furniture":   {"bench", "potting table", "treehouse", "bird feeder", "swing seat", "bookshelf"},
	"gift":        {"telescope", "record player", "espresso machine", "kayak", "sewing machine", "drone"},
	"hobby":       {"pottery", "rock climbing", "birdwatching", "woodworking", "salsa dancing", "chess"},
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
