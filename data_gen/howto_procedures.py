"""Hand-written how-to procedures for `data_gen.howto_qa` (``--style howto``), in the generator's
own words: cooking, repair, crafts, health, paperwork, gardening, travel, pets, cleaning, money.

One procedure is a block of lines:

* ``# DOMAIN | what the person is doing`` opens it (``instruct`` for DIY guides, ``wiki`` for
  how-to articles; the second part is a gerund phrase: "baking a simple sandwich loaf");
* ``ID | step text ~ the step in other words > TARGET`` a process step; ``[phrase|kind]`` marks a
  detail a question may ask for (kinds: time, amount, tool, place, until, purpose, temp, manner,
  freq); ``~ ...`` is how a person would name the step without its wording, ``> TARGET`` sends it
  somewhere other than the next line;
* ``?ID | Question? | Label>TARGET; Label>TARGET | clause / clause`` a decision, its branches, and
  one everyday clause per branch that settles it without restating it (``{they}``, ``{their}``,
  ``{them}`` stand for the person; a clause never puts a present-tense verb right after
  ``{they}``, so "you" can stand in);
* ``!ID | text`` an end; ``*ID | text`` a side note hung on the step above it.
"""

PROCEDURES = r"""
# instruct | baking a simple sandwich loaf
mix | Mix the flour, salt and instant yeast [in a large mixing bowl|place] [until they are evenly combined|until] ~ combine the dry ingredients
water | Pour in [about 300 ml|amount] of lukewarm water and stir [with a wooden spoon|tool] to form a shaggy dough ~ add the liquid to the dry mix
?sticky | Is the dough too sticky to handle? | Yes>flour; No>knead | the dough keeps clinging to {their} fingers / the dough comes away cleanly from the sides of the bowl
flour | Sprinkle [one tablespoon of flour|amount] over the dough and fold it in [to make it easier to work with|purpose] ~ add a little more flour > sticky
knead | Knead the dough [on a lightly floured counter|place] [for about 10 minutes|time] until it feels smooth and springy ~ work the dough by hand
rise | Cover the bowl with a damp towel and leave the dough [in a warm spot|place] [until it has doubled in size|until] ~ let the dough prove
?doubled | Has the dough doubled after an hour? | Yes>shape; No>wait | after an hour the dough fills the bowl to the rim / after an hour the dough has barely grown
wait | Move the bowl closer to a radiator and give it [another 30 minutes|time] ~ give the dough more time somewhere warmer > doubled
shape | Shape the dough into a log and place it [in a greased loaf tin|place] ~ form the loaf
bake | Bake the loaf [at 220 degrees|temp] [for 30 to 35 minutes|time] until the crust is deep golden ~ put the bread in the oven
!cool | Turn the bread out [onto a wire rack|place] and let it cool [for at least one hour|time] before slicing

# instruct | fixing a flat bicycle tyre
lever | Remove the wheel and use [two plastic tyre levers|tool] to lift one side of the tyre off the rim ~ get the tyre off the wheel
tube | Pull out the inner tube and pump in a little air [to find the leak|purpose] ~ take out the tube
?hole | Can you hear or feel air escaping from the tube? | Yes>mark; No>bucket | a faint hiss comes from one spot on the tube / no matter how closely {they} listens, no air seems to come out
bucket | Dip the tube section by section [in a bucket of water|place] and watch [for a stream of bubbles|purpose] ~ submerge the tube in water
mark | Mark the puncture [with a piece of chalk|tool] and rough up the area [with sandpaper|tool] ~ mark where the hole is
?big | Is the hole larger than a few millimetres? | Yes>newtube; No>patch | the gash in the rubber is as long as a fingernail / the hole is no bigger than a pinprick
patch | Spread a thin layer of rubber cement, wait [for one minute|time] and press the patch on firmly ~ glue a patch over the hole > refit
newtube | Throw the damaged tube away and fit a new inner tube [of the same size|manner] ~ replace the tube
refit | Tuck the tube back inside the tyre and push the bead onto the rim [with your thumbs|tool] ~ put the tyre back on
!inflate | Inflate the tyre [to the pressure printed on the sidewall|amount] and refit the wheel to the frame

# wiki | changing a flat car tire at the roadside
safe | Pull over [onto flat, firm ground|place] [well away from traffic|place] and switch on the hazard lights ~ get the car somewhere safe
?spare | Do you have a spare tire and a jack in the trunk? | Yes>brake; No>call | {they} finds the spare tire and the jack under the boot floor / the boot holds only a repair kit and no spare wheel
call | Call your roadside assistance provider and wait [inside the car with the seatbelt on|place] ~ phone for help
!tow | Let the recovery driver tow the car to the nearest garage
brake | Apply the parking brake and place [a heavy stone|tool] behind the opposite wheel [to stop the car rolling|purpose] ~ secure the car
loosen | Loosen the lug nuts [half a turn each|amount] [with the wheel wrench|tool] while the tire is still on the ground ~ slacken the wheel nuts
jack | Raise the car with the jack [until the flat tire is about 15 cm off the ground|until] ~ lift the car
swap | Remove the lug nuts, pull off the flat tire and mount the spare on the wheel studs ~ change the wheel
tighten | Lower the car and tighten the nuts [in a star pattern|manner] [to seat the wheel evenly|purpose] ~ do up the nuts again
?pressure | Does the spare look underinflated? | Yes>garage; No>!done | the spare bulges noticeably at the bottom / the spare stands as firm as the other tires
garage | Drive slowly [to the nearest petrol station|place] and pump the spare up [to the recommended pressure|amount] ~ inflate the spare
!done | Stow the flat tire and tools and get the flat repaired [within a few days|time]

# instruct | painting an interior wall
clear | Move the furniture [to the middle of the room|place] and cover it [with dust sheets|tool] ~ protect the furniture
?holes | Are there cracks or nail holes in the wall? | Yes>fill; No>tape | several old picture hooks have left holes in the plaster / the plaster is perfectly smooth with no marks
fill | Fill the holes [with a flexible filler|tool] and sand them flush [once the filler is dry|time] ~ patch the wall
tape | Run [low-tack painter's tape|tool] along the skirting boards and window frames [to keep the edges clean|purpose] ~ mask the edges
?dark | Is the old colour much darker than the new one? | Yes>primer; No>cut | the wall is currently a deep navy blue and the new paint is pale cream / the old paint is an off-white very close to the new shade
primer | Roll on [one coat of stain-blocking primer|amount] and let it dry [for four hours|time] ~ prime the wall
cut | Cut in around the edges [with a 50 mm angled brush|tool] ~ paint the edges by brush
roll | Roll the paint on [in overlapping W shapes|manner] working [from top to bottom|manner] ~ paint the main area
?even | Does the colour look even once the first coat is dry? | Yes>!peel; No>second | patches of the old colour still show through when the light hits the wall / the wall looks uniform from every angle
second | Wait [at least two hours|time] and apply a second coat the same way ~ add another coat > even
!peel | Peel off the tape [while the last coat is still slightly wet|time] and put the furniture back

# instruct | making a wooden birdhouse
cut | Cut the six panels from [a 15 mm pine board|tool] following the measurements [on the template|place] ~ saw out the pieces
drill | Drill [a 32 mm entrance hole|amount] [about 15 cm above the floor panel|place] in the front piece ~ make the entrance
*tip | Smaller holes keep larger birds out
glue | Glue and nail the sides to the floor [with galvanised nails|tool] [so they do not rust|purpose] ~ assemble the box
?square | Is the box square when you check the diagonals? | Yes>roof; No>clamp | both diagonal measurements come out exactly the same / one diagonal is almost a centimetre longer than the other
clamp | Loosen the clamps, push the box square and leave the glue to set [for an hour|time] ~ straighten the box > square
roof | Attach the roof panels [with a hinge on one side|manner] [so the box can be cleaned out|purpose] ~ fit the roof
?paint | Do you want to paint the outside? | Yes>stain; No>hang | {they} would like the birdhouse to match the green garden fence / {they} prefers the look of bare pine
stain | Apply [a water-based exterior paint|tool] to the outside only and let it dry [overnight|time] ~ decorate the outside
!hang | Hang the birdhouse [at least two metres up|place] on a tree [facing away from strong winds|manner]

# wiki | applying for a passport
form | Download the application form [from the official government website|place] and fill it in [in black ink|manner] ~ complete the paperwork
photo | Get two recent photos taken [at a photo booth or pharmacy|place] that meet the size rules ~ have pictures taken
?first | Is this your first adult passport? | Yes>office; No>mail | {they} has never held a passport before / {their} old passport from ten years ago is in the drawer
mail | Send the form, photos and old passport [by post|manner] [with the renewal fee|amount] ~ post the renewal > urgent
office | Book an appointment and go [in person to a passport office|place] with proof of identity ~ apply in person
?witness | Do you need someone to confirm your identity? | Yes>sign; No>pay | the form asks for a countersignatory because the photo is new / the form does not ask for anyone to vouch for the photos
sign | Ask [a person who has known you for two years|manner] to sign the back of one photo ~ get the photo countersigned
pay | Pay the fee [by card at the counter|manner] and keep the receipt [as proof of payment|purpose] ~ settle the fee
?urgent | Do you need to travel within three weeks? | Yes>fast; No>!wait | {they} has a flight booked for ten days from now / the trip is not until next summer
fast | Pay extra for the fast-track service [which returns the passport in a week|time] ~ request faster processing
!wait | Wait [up to ten weeks|time] for the passport to arrive [by courier|manner]

# instruct | repotting a root-bound houseplant
water | Water the plant [the day before|time] [so the root ball slides out easily|purpose] ~ give the plant a drink
pot | Choose a new pot [about 5 cm wider|amount] than the old one with drainage holes in the base ~ pick a bigger container
remove | Tip the plant on its side and ease it out [by tapping the bottom of the pot|manner] ~ take the plant out
?circling | Are the roots circling tightly around the root ball? | Yes>tease; No>soil | a dense mat of roots wraps round and round the soil / only a few loose roots show at the edge
tease | Tease the outer roots apart [with your fingers|tool] and trim any dead ones [with clean scissors|tool] ~ loosen the roots
soil | Put [a layer of fresh potting mix|amount] in the new pot and set the plant [at the same depth as before|place] ~ position the plant
fill | Fill around the sides with more mix and firm it gently [to remove air pockets|purpose] ~ add compost around it
?droop | Is the plant drooping a few days later? | Yes>shade; No>!care | by the weekend the leaves hang limply over the rim / a few days on the leaves stand upright and glossy
shade | Move the plant [out of direct sun|place] [for a week|time] while the roots recover ~ put it somewhere shadier
!care | Resume normal watering and feed it [after six weeks|time]

# wiki | treating a minor burn at home
cool | Hold the burn [under cool running water|place] [for at least 20 minutes|time] ~ cool the skin
*ice | Never put ice directly on a burn
rings | Remove rings, watches or tight clothing near the burn [before the area starts to swell|time] ~ take off jewellery
?size | Is the burn larger than the palm of your hand? | Yes>er; No>blister | the red patch covers most of the forearm / the burn is only about the size of a coin
er | Cover it loosely [with cling film|tool] and go [to the emergency department|place] ~ seek urgent care
!er_end | Follow the treatment plan given by the hospital staff
blister | Leave any blisters intact [to lower the risk of infection|purpose] ~ do not pop blisters
dress | Cover the burn [with a sterile non-stick dressing|tool] and change it [every day|freq] ~ bandage the burn
?pain | Is the pain still bad after a few hours? | Yes>relief; No>watch | by the evening the burn still throbs badly / after a few hours it only stings a little
relief | Take [paracetamol or ibuprofen|tool] following the dose [on the packet|place] ~ take a painkiller
watch | Check the burn [each day|freq] for redness, swelling or pus ~ keep an eye on the burn
?infected | Does the burn show signs of infection? | Yes>gp; No>!heal | the skin around the dressing turns hot and yellow fluid seeps out / the skin looks clean and slowly pink again
gp | Book an appointment with your doctor [the same day|time] ~ see a GP
!heal | Keep the area moisturised [for a few weeks|time] while it heals

# instruct | brewing pour-over coffee
boil | Heat the water [to about 94 degrees|temp] [in a gooseneck kettle|tool] ~ warm up the water
grind | Grind [20 grams of beans|amount] [to the texture of coarse sand|manner] ~ prepare the coffee grounds
rinse | Place a paper filter in the dripper and rinse it with hot water [to remove the papery taste|purpose] ~ wet the filter
bloom | Pour [about 40 ml of water|amount] over the grounds and let them bloom [for 30 seconds|time] ~ pre-wet the grounds
pour | Pour the rest of the water [in slow circles|manner] [until the scale reads 320 grams|until] ~ add the remaining water
?slow | Does the water take longer than four minutes to drain? | Yes>coarser; No>?taste | the water is still sitting in the cone after five minutes / the bed of coffee is dry after three and a half minutes
coarser | Set the grinder one step coarser [for the next cup|time] ~ change the grind size
?taste | Does the coffee taste sour or balanced? | Sour>finer; Balanced>!enjoy | the first sip is sharp and sour like lemon / the cup tastes sweet and balanced
finer | Grind slightly finer next time [to extract more flavour|purpose] ~ use a finer setting
!enjoy | Serve the coffee [straight away|time] while it is hot

# wiki | preparing for a job interview
research | Read the company's website and recent news [to understand what they do|purpose] ~ learn about the employer
list | Write down [three examples from past jobs|amount] that match the role's requirements ~ prepare stories from experience
?video | Is the interview held over video? | Yes>tech; No>route | the invitation email contains a meeting link / the invitation gives an office address on the fourth floor
tech | Test the camera, microphone and connection [the day before|time] ~ check the equipment > clothes
route | Plan the route and aim to arrive [ten minutes early|time] ~ work out the journey
clothes | Lay out clean, neat clothes [the night before|time] ~ choose an outfit
practice | Rehearse answers [out loud with a friend|manner] [to build confidence|purpose] ~ practise answering questions
?offer | Did you receive an offer after the interview? | Yes>negotiate; No>feedback | a week later the recruiter phones with good news / a short email says they chose another candidate
negotiate | Review the offer and discuss the salary [before signing anything|time] ~ consider the offer
!accept | Accept in writing and agree a start date
feedback | Politely ask the recruiter for feedback [to improve next time|purpose] ~ request comments
!next | Keep applying to other roles that fit your skills

# instruct | unclogging a bathroom sink
hair | Pull out visible hair and debris [with a plastic drain snake|tool] ~ clear the drain opening
?drains | Does the water now drain freely? | Yes>!flush; No>soda | the water disappears down the plughole in seconds / the basin is still half full ten minutes later
!flush | Run hot water [for a minute|time] to flush the pipe
soda | Pour [half a cup of baking soda|amount] followed by [half a cup of vinegar|amount] into the drain ~ use baking soda and vinegar
sit | Cover the plughole and leave the mixture [for 30 minutes|time] ~ let it fizz
hot | Flush the drain [with a kettle of hot water|tool] ~ rinse with hot water
?still | Is the sink still blocked? | Yes>trap; No>!done | the water level barely moves / the water gurgles away quickly
trap | Put a bucket under the U-bend, unscrew it [by hand|manner] and clean it out ~ empty the trap
?fixed | Does the water run away after refitting the trap? | Yes>!done; No>plumber | the basin empties normally / the water still pools in the basin
plumber | Call a licensed plumber [to inspect the pipes further down|purpose] ~ get professional help
!done | Wipe the basin clean and check the trap [for drips|purpose]

# wiki | starting a vegetable garden
spot | Choose a spot that gets [at least six hours of sun|amount] a day ~ find a sunny place
test | Test the soil [with a home kit|tool] [to learn its pH|purpose] ~ check the soil
?acid | Is the soil pH below 6? | Yes>lime; No>compost | the kit turns a bright orange that means strongly acidic soil / the reading comes out at a neutral 7
lime | Dig in [garden lime|tool] [a few weeks before planting|time] ~ raise the pH
compost | Spread [5 cm of compost|amount] over the bed and fork it in ~ enrich the soil
?seeds | Are you starting from seeds? | Yes>sow; No>plant | {they} bought packets of tomato and bean seeds / {they} picked up young plants from the nursery
sow | Sow the seeds [at the depth shown on the packet|place] and keep them moist ~ plant the seeds > mulch
plant | Plant the seedlings [30 cm apart|amount] and water them in ~ put the plants in
mulch | Cover the soil with straw mulch [to hold in moisture|purpose] ~ mulch the bed
?pests | Are slugs eating the young plants? | Yes>traps; No>!harvest | holes appear in the lettuce leaves overnight with silvery trails nearby / the leaves stay whole and untouched
traps | Set out beer traps [in the evening|time] and check them [every morning|freq] ~ deal with the slugs
!harvest | Water deeply [twice a week|freq] and harvest the crops when ripe

# instruct | sewing on a shirt button
thread | Thread the needle with [about 45 cm of thread|amount] and knot the ends together ~ prepare the needle
mark | Mark the button position [with tailor's chalk|tool] [using the buttonhole as a guide|manner] ~ find where the button goes
?hasshank | Does the button have a shank underneath? | Yes>shank; No>pin | a small loop sticks out from the back of the button / the button is completely flat with four holes
shank | Sew through the shank loop [six to eight times|amount] ~ stitch through the loop > knot
pin | Lay a toothpick across the button [to leave room for the fabric|purpose] and sew through the holes ~ stitch over a spacer
wrap | Remove the toothpick and wrap the thread [around the stitches under the button|place] ~ make a thread shank
!knot | Tie off on the back of the fabric [with a double knot|manner] and trim the excess

# wiki | disputing an error on a credit report
get | Request a free copy of your credit report [from each agency's website|place] ~ obtain the report
read | Go through each account listed [line by line|manner] [to spot anything unfamiliar|purpose] ~ check the entries
?error | Did you find an account or payment you do not recognise? | Yes>gather; No>!fine | a credit card {they} never opened appears on the list / every account on the report looks familiar
!fine | Check your report again [in twelve months|time]
gather | Collect bank statements and letters [that prove the entry is wrong|purpose] ~ find evidence
dispute | File a dispute [online or by certified mail|manner] with the agency ~ raise the dispute
?reply | Has the agency replied within 30 days? | Yes>result; No>chase | a letter from the agency arrives three weeks later / five weeks pass without any answer
chase | Phone the agency and quote your dispute reference number ~ follow up
result | Read the agency's decision [carefully|manner] ~ review the outcome
?removed | Was the entry removed? | Yes>!fine; No>complain | the card no longer shows on the updated report / the agency says the entry will stay
complain | Send a complaint [to the financial ombudsman|place] with copies of your evidence ~ escalate the case
!wait | Wait for the ombudsman's ruling, which can take [several months|time]

# instruct | making strawberry jam
wash | Wash and hull [1 kg of strawberries|amount] and cut the large ones in half ~ prepare the fruit
jars | Sterilise the jars [in a 140 degree oven|place] [for 15 minutes|time] ~ clean the jars
cook | Put the fruit and [1 kg of jam sugar|amount] in a wide pan and heat gently [until the sugar dissolves|until] ~ warm the fruit with sugar
boil | Bring to a rolling boil and cook [for about 8 minutes|time] ~ boil the jam
plate | Spoon a little onto a cold plate [from the freezer|place] [to test the set|purpose] ~ do the wrinkle test
?set | Does the jam wrinkle when you push it? | Yes>skim; No>more | the surface crinkles under {their} fingertip / the jam just runs across the plate
more | Boil [for another two minutes|time] and test again ~ cook it a little longer > plate
skim | Skim off any foam [with a metal spoon|tool] ~ remove the scum
!pot | Ladle the jam into the warm jars, seal them and label them [with the date|manner]

# wiki | training a puppy to sit
treat | Hold a small treat [close to the puppy's nose|place] ~ show the puppy a reward
lift | Move your hand up slowly [so the head follows and the bottom lowers|purpose] ~ raise the treat
?sits | Does the puppy sit down? | Yes>reward; No>again | the puppy's bottom touches the floor / the puppy jumps up at {their} hand instead
again | Lower your hand, wait [a few seconds|time] and try the movement again [more slowly|manner] ~ repeat the lure > lift
reward | Say the word 'sit' and give the treat [immediately|time] ~ praise and reward
repeat | Practise [five times per session|amount] [two or three times a day|freq] ~ keep training
?reliable | Does the puppy sit on the word alone most of the time? | Yes>!fade; No>repeat | after a week the puppy sits as soon as it hears the word / the puppy still only sits when it sees the treat
!fade | Start rewarding only every other sit [to make the habit stick|purpose]

# instruct | replacing a leaky kitchen tap washer
off | Turn off the water supply [at the isolation valve under the sink|place] ~ shut off the water
open | Open the tap [to drain any remaining water|purpose] and plug the sink ~ empty the line
cover | Prise off the decorative cap [with a flat screwdriver|tool] ~ remove the cover
nut | Unscrew the headgear nut [with an adjustable spanner|tool] [turning anticlockwise|manner] ~ undo the nut
?worn | Is the rubber washer cracked or flattened? | Yes>washer; No>seat | the old washer is split across the middle / the washer still looks round and springy
washer | Fit a new washer [of the same size|manner] and hold it [with the small retaining nut|tool] ~ change the washer > reassemble
seat | Inspect the valve seat [with a torch|tool] for scratches ~ look at the seat
reassemble | Reassemble the tap and turn the water back on [slowly|manner] ~ put it back together
?drip | Does the tap still drip? | Yes>plumber; No>!done | drops keep falling into the sink every few seconds / the spout stays completely dry
plumber | Book a plumber [to regrind or replace the valve seat|purpose] ~ call a professional
!done | Wipe the tap and keep the spare washers [in a labelled bag|place]

# wiki | writing a formal complaint letter
facts | Write down the dates, names and order numbers [involved in the problem|manner] ~ gather the details
addr | Find the name of the customer service manager [on the company's website|place] ~ look up who to write to
draft | Describe the problem [in short, factual paragraphs|manner] and say what outcome you want ~ write the letter
attach | Attach copies, never originals, of receipts [as supporting evidence|purpose] ~ include proof
send | Send the letter [by recorded delivery|manner] ~ post it
?answer | Did the company respond within 14 days? | Yes>review; No>remind | a reply lands in {their} inbox after a week / two weeks go by without any answer
remind | Send a short reminder [referring to the first letter|manner] ~ chase them up > answer
review | Read the reply and compare it [with the outcome you asked for|manner] ~ consider the answer
?happy | Are you satisfied with the offer? | Yes>!close; No>adr | they offer a full refund, which is all {they} wanted / they offer only a small voucher
adr | Take the case [to an alternative dispute resolution scheme|place] ~ escalate the complaint
!close | Confirm in writing that the matter is settled

# instruct | knitting a simple scarf
yarn | Choose [two balls of chunky wool|amount] and [8 mm needles|tool] ~ pick materials
cast | Cast on [30 stitches|amount] using the long-tail method ~ start the first row
knit | Knit every row in garter stitch [until the scarf is 150 cm long|until] ~ work the rows
?dropped | Did you drop a stitch along the way? | Yes>hook; No>bind | a ladder of loose loops appears down the middle / the edges and rows all look neat
hook | Pick up the dropped stitch [with a crochet hook|tool] and work it back up the ladder ~ fix the dropped stitch > knit
bind | Bind off [loosely|manner] [so the end does not pucker|purpose] ~ finish the last row
weave | Weave in the loose ends [with a darning needle|tool] ~ hide the tails
?tassels | Do you want a fringe on the ends? | Yes>fringe; No>!block | {they} likes the tassels on the scarf in the shop window / {they} wants a plain, clean look
fringe | Cut [20 cm lengths of yarn|amount] and knot them along both ends ~ add tassels
!block | Wash the scarf gently and lay it flat [on a towel|place] to dry

# wiki | opening a bank account online
compare | Compare accounts [on a price comparison site|place] for fees and interest ~ choose an account
?age | How old are you? | Under 18>parent; 18 or over>apply | {they} celebrated a sixteenth birthday last month / {they} turned 30 this year
parent | Ask a parent or guardian [to apply together with you|purpose] ~ get an adult to help
apply | Fill in the online application [with your address history for three years|manner] ~ complete the form
id | Upload a photo of your passport or driving licence [as proof of identity|purpose] ~ send ID
?verified | Did the bank verify your identity automatically? | Yes>card; No>branch | a confirmation email arrives within minutes / the app asks {them} to visit in person
branch | Take your documents [to a local branch|place] [within 30 days|time] ~ verify in person
card | Activate the debit card [when it arrives by post|time] ~ switch on the card
!app | Set up the mobile app and choose [a six-digit passcode|amount]

# instruct | building a raised garden bed
boards | Cut four untreated boards [to 120 cm and 240 cm|amount] ~ size the timber
level | Level the ground [with a spade and rake|tool] where the bed will go ~ prepare the site
?flat | Is the ground level when checked with a spirit level? | Yes>screw; No>dig | the bubble sits right in the middle / the bubble drifts well to one side
dig | Dig out the high side [a few centimetres at a time|manner] ~ remove soil from the high end > flat
screw | Screw the corners together [with 75 mm exterior screws|tool] ~ join the boards
liner | Lay cardboard [in the bottom|place] [to smother the weeds|purpose] ~ line the base
fill | Fill with [a mix of topsoil and compost|amount] up to 5 cm below the rim ~ add soil
!plant | Water the soil well and plant [after a few days|time]

# wiki | caring for a cold at home
rest | Rest [as much as possible|amount] and stay home [for the first two days|time] ~ take it easy
fluids | Drink [plenty of water, tea or broth|amount] [to avoid dehydration|purpose] ~ keep hydrated
?fever | Is your temperature above 38 degrees? | Yes>med; No>steam | the thermometer shows 38.9 / the thermometer stays at 36.8
med | Take paracetamol [at the dose on the packet|amount] ~ bring the fever down
steam | Breathe in steam [from a bowl of hot water|place] [to ease a blocked nose|purpose] ~ inhale steam
?better | Are you feeling better after a week? | Yes>!back; No>doctor | by the weekend {they} is back to normal / after eight days {they} still feels awful
doctor | Call your doctor [if symptoms last more than ten days|time] ~ contact the surgery
!back | Return to work once you have been fever-free [for 24 hours|time]

# instruct | cleaning a cast iron pan
warm | Rinse the pan [under hot water|place] [while it is still warm|time] ~ wash the pan
scrub | Scrub off food [with a stiff brush and coarse salt|tool] ~ remove stuck bits
?rust | Are there rusty spots on the surface? | Yes>steel; No>dry | orange flecks show along the inside edge / the black surface is smooth and dark all over
steel | Rub the rust away [with fine steel wool|tool] ~ scour the rust
dry | Dry the pan thoroughly [on a low burner|place] [for a few minutes|time] ~ get rid of moisture
oil | Wipe on [a very thin layer of vegetable oil|amount] [with a paper towel|tool] ~ oil the surface
?stripped | Did you remove rust down to bare metal? | Yes>season; No>!store | the scrubbed patch is dull grey metal / the coating is intact apart from a tiny spot
season | Bake the pan upside down [at 230 degrees|temp] [for one hour|time] ~ re-season it
!store | Store the pan [in a dry cupboard|place] with a paper towel inside

# wiki | planning a child's birthday party
date | Pick a date [about six weeks ahead|time] and agree it with the family ~ choose a day
?guests | Are more than 12 children coming? | Yes>venue; No>home | {they} wants to invite the whole class of 25 / only a handful of close friends are on the list
venue | Book a play centre or hall [at least a month ahead|time] ~ rent a space > invite
home | Clear the living room and garden [to make space for games|purpose] ~ get the house ready
invite | Send invitations [three weeks before the party|time] with a reply date ~ invite guests
?allergy | Does any guest have a food allergy? | Yes>safe; No>food | one parent mentions a nut allergy / none of the parents reported any allergies
safe | Plan a menu free of the allergen and label every dish [clearly|manner] ~ adapt the food
food | Order the cake [a week in advance|time] and buy snacks ~ arrange food
!party | Set up decorations [on the morning of the party|time] and enjoy the day

# instruct | charging and replacing a car battery
test | Measure the battery voltage [with a multimeter|tool] [with the engine off|manner] ~ check the battery
?low | Is the voltage below 12.2 volts? | Yes>charge; No>!ok | the meter reads 11.8 volts / the meter shows a healthy 12.6 volts
!ok | Look for other causes such as the starter or alternator
charge | Connect a smart charger [red to positive first|manner] and charge [overnight|time] ~ recharge it
?holds | Does the battery hold its charge the next day? | Yes>!ok2; No>replace | the next morning it still reads 12.6 volts / by the next morning it has dropped back to 11.9 volts
!ok2 | Drive for at least 30 minutes to keep it topped up
replace | Remove the old battery [negative terminal first|manner] and fit a new one [of the same size|manner] ~ change the battery
!recycle | Take the old battery [to a recycling centre|place]

# wiki | moving to a new flat
notice | Give your landlord written notice [at least one month before you leave|time] ~ tell the landlord
boxes | Collect boxes and pack [one room at a time|manner] ~ start packing
label | Label each box [with its room and contents|manner] ~ mark the boxes
?van | Do you have more than a carload of belongings? | Yes>hire; No>friends | {their} furniture includes a sofa, a bed and a wardrobe / everything {they} owns fits in a few suitcases
hire | Book a removal van [two weeks ahead|time] ~ hire movers > meters
friends | Ask two friends [to help on moving day|purpose] ~ get help
meters | Take photos of the meter readings [on the day you move|time] ~ record the meters
address | Update your address [with your bank and employer|place] ~ change your address
!deposit | Clean the old flat [to get your deposit back|purpose] and return the keys

# instruct | making a cardboard marble run
tubes | Collect [eight to ten cardboard tubes|amount] from kitchen rolls ~ gather tubes
cut | Cut each tube in half lengthways [with craft scissors|tool] ~ make open channels
plan | Sketch the route [on the back of a cereal box|place] ~ plan the course
tape | Tape the channels to the board [at a gentle slope|manner] ~ fix the channels
test | Roll a marble from the top [to test the run|purpose] ~ try it out
?falls | Does the marble fall off anywhere? | Yes>walls; No>decor | the marble flies off at the second bend / the marble rolls all the way to the cup
walls | Add card walls [to the outside of each bend|place] ~ build up the edges > test
decor | Decorate the run [with markers and stickers|tool] ~ make it colourful
!race | Place a cup at the bottom [to catch the marbles|purpose]

# wiki | filing a simple tax return
docs | Gather your income statements and receipts [from the tax year|time] ~ collect paperwork
login | Sign in to the tax portal [with your government ID|tool] ~ log in
income | Enter your salary and any other income [from the statements|manner] ~ fill in earnings
?self | Did you do any freelance work? | Yes>expenses; No>deduct | {they} designed logos for a few local shops on the side / {their} only income came from the salaried job
expenses | List business expenses [such as equipment and travel|manner] [to reduce the taxable profit|purpose] ~ claim costs
deduct | Add deductions such as pension contributions ~ claim allowances
check | Check every figure [against the documents|manner] ~ review the numbers
?owe | Does the calculation show that you owe tax? | Yes>pay; No>!refund | the summary shows 340 to pay / the summary shows a refund of 120
pay | Pay the balance [by 31 January|time] [through bank transfer|manner] ~ settle the bill
!refund | Submit the return and wait [about two weeks|time] for the refund

# instruct | making a tie-dye t-shirt
wash | Wash the new cotton shirt [to remove the factory finish|purpose] ~ prewash the shirt
soak | Soak the shirt [in soda ash solution|place] [for 20 minutes|time] ~ pre-treat the fabric
twist | Twist the damp shirt into a spiral and secure it [with three rubber bands|tool] ~ fold the pattern
dye | Squeeze the dye [onto each section|place] [wearing rubber gloves|manner] ~ apply the colours
bag | Seal the shirt [in a plastic bag|place] and leave it [for 24 hours|time] ~ let the dye set
rinse | Rinse [in cold water|place] [until the water runs clear|until] ~ wash out excess dye
?bleed | Is colour still running out of the fabric? | Yes>rinse; No>!dry | the water keeps turning pink / the rinse water is clear
!dry | Wash the shirt alone [on a warm cycle|manner] and hang it to dry

# wiki | getting rid of fruit flies in the kitchen
source | Throw away overripe fruit and empty the food bin [to remove what attracts them|purpose] ~ remove the source
clean | Wipe the counters and drain [with hot soapy water|tool] ~ clean the kitchen
trap | Fill a jar with [a little cider vinegar and a drop of washing-up liquid|amount] ~ set a trap
cover | Cover the jar [with cling film with small holes|tool] ~ close the trap
?gone | Are the flies gone after three days? | Yes>!prevent; No>more | the jar is full and none fly around any more / a cloud of flies still hovers over the sink
more | Set out [two more traps|amount] [near the bin and the sink|place] ~ add traps > gone
!prevent | Keep fruit [in the fridge|place] during the summer

# instruct | hanging a heavy mirror
find | Locate the studs [with a stud finder|tool] ~ find the wall studs
?stud | Is there a stud where you want to hang it? | Yes>pilot; No>anchor | the finder beeps right at the pencil mark / the finder finds nothing but hollow plasterboard
pilot | Drill a pilot hole [slightly narrower than the screw|amount] into the stud ~ make a small hole > mark
anchor | Fit [a heavy-duty toggle anchor|tool] rated [for twice the mirror's weight|amount] ~ use a wall anchor
mark | Mark the height [with a pencil|tool] [at eye level|place] ~ mark the position
screw | Drive the screw in [leaving 5 mm sticking out|amount] ~ fix the screw
hang | Hang the mirror and check it [with a spirit level|tool] ~ put the mirror up
?straight | Is the mirror level? | Yes>!done; No>adjust | the bubble sits in the middle / the mirror tilts visibly to the left
adjust | Slide the wire [along the hook|place] ~ straighten it > straight
!done | Clean the glass [with a microfibre cloth|tool]

# wiki | preparing a simple household budget
income | Add up your total monthly income [after tax|manner] ~ work out earnings
bills | List your fixed bills [such as rent, energy and phone|manner] ~ note regular costs
spend | Track everyday spending [for one month|time] [in a notebook or app|tool] ~ monitor spending
?over | Are you spending more than you earn? | Yes>cut; No>save | the card statement shows {them} 200 short by the end of the month / {they} still has money left over at the end of each month
cut | Cancel unused subscriptions and set a weekly food limit [to close the gap|purpose] ~ reduce spending
save | Move [at least 10 percent of income|amount] into savings [on payday|time] ~ put money aside
?emergency | Do you have three months of expenses saved? | Yes>invest; No>fund | {their} savings account already covers four months of bills / {they} has almost nothing put by
fund | Build an emergency fund [before anything else|time] ~ save a cushion
invest | Look at long-term investments such as a pension ~ consider investing
!review | Review the budget [every month|freq]

# instruct | making candles from soy wax
melt | Melt [500 grams of soy wax flakes|amount] [in a double boiler|tool] ~ heat the wax
wick | Stick the wick to the bottom of the jar [with a glue dot|tool] ~ fix the wick
?temp | Has the wax reached 85 degrees? | Yes>scent; No>heat | the thermometer shows 86 / the thermometer shows just 70
heat | Keep heating [while stirring gently|manner] ~ warm it more > temp
scent | Stir in [30 ml of fragrance oil|amount] [for two minutes|time] ~ add the scent
pour | Pour the wax into the jar [slowly|manner] [to avoid air bubbles|purpose] ~ fill the jar
?sink | Did the top sink in the middle as it set? | Yes>top; No>trim | a hollow forms around the wick as the wax cools / the surface sets flat and smooth
top | Pour [a thin top-up layer|amount] of reheated wax ~ fill the dip
trim | Trim the wick [to 5 mm|amount] ~ cut the wick
!cure | Let the candle cure [for a week|time] before burning it

# wiki | renewing a driving licence
check | Check the expiry date [on the front of the card|place] ~ look at the expiry
?expired | Has the licence already expired? | Yes>stop; No>online | the card ran out two months ago / the card is valid until the end of next month
stop | Stop driving [until you have a valid licence|until] ~ do not drive
online | Apply [on the official licensing website|place] ~ go online
photo | Upload a new digital photo or use [your passport photo|tool] ~ provide a picture
?medical | Do you have a medical condition that affects driving? | Yes>declare; No>pay | {they} was diagnosed with epilepsy last year / {they} has no health problems at all
declare | Fill in the medical questionnaire [honestly|manner] ~ report the condition
pay | Pay the renewal fee [by debit card|manner] ~ make the payment
!post | Wait [about one week|time] for the new licence to arrive by post

# instruct | patching a hole in drywall
cut | Cut the damaged area into a neat square [with a drywall saw|tool] ~ tidy the hole
?size | Is the hole wider than 10 cm? | Yes>backing; No>mesh | the hole is about the size of a dinner plate / the hole is smaller than a doorknob
backing | Screw [a strip of wood|tool] inside the wall [behind the hole|place] ~ add support
patch | Cut a drywall patch [to fit the square|manner] and screw it to the backing ~ fit a new piece > mud
mesh | Cover the hole [with a self-adhesive mesh patch|tool] ~ stick a patch on
mud | Spread joint compound [with a wide putty knife|tool] [in thin coats|manner] ~ apply filler
sand | Sand the area smooth [with 120-grit paper|tool] [once it is dry|time] ~ smooth it down
?smooth | Can you still see the edges of the patch? | Yes>mud; No>!paint | a ridge still shows under the lamp / {they} cannot feel any edge at all
!paint | Prime and paint the repair [to match the wall|purpose]

# wiki | booking a cheap flight
dates | Decide on flexible travel dates [within a two-week window|time] ~ choose when to fly
search | Search [on a flight comparison site|place] [in a private browser window|manner] ~ look for flights
?nonstop | Is a direct flight much more expensive? | Much pricier>stopover; About the same>direct | the direct route costs twice as much / the direct flight is only a few pounds more
stopover | Choose a route with one stop [of at least two hours|time] ~ take a connecting flight > bags
direct | Pick the direct flight [to save time|purpose] ~ go direct
bags | Check the baggage allowance [before paying|time] ~ look at luggage rules
?bag | Do you need a checked bag? | Yes>addbag; No>pay | {they} is taking ski gear / {they} is only packing a small backpack
addbag | Add the bag [during booking|time] [because it costs more at the airport|purpose] ~ pay for luggage
pay | Pay [with a credit card|tool] [for extra protection|purpose] ~ book the ticket
!confirm | Save the confirmation email and check in [24 hours before departure|time]

# instruct | making homemade pasta dough
well | Make a well in [200 grams of flour|amount] [on a clean work surface|place] ~ form the flour mound
eggs | Crack [two eggs|amount] into the well and whisk them [with a fork|tool] ~ add the eggs
bring | Draw the flour in [gradually|manner] [until a rough dough forms|until] ~ combine the dough
?dry | Is the dough crumbly and dry? | Yes>water; No>knead | the dough keeps breaking apart into crumbs / the dough holds together in one soft ball
water | Add water [a teaspoon at a time|amount] ~ moisten the dough > dry
knead | Knead [for 8 minutes|time] until silky ~ work the dough
rest | Wrap in cling film and rest [for 30 minutes|time] [at room temperature|place] ~ let it relax
roll | Roll out thinly [with a pasta machine|tool] ~ flatten the dough
!cut | Cut into ribbons and cook [in salted boiling water|place] [for two minutes|time]

# wiki | dealing with a lost phone
call | Call your number [from another phone|tool] [to hear if it is nearby|purpose] ~ ring the phone
?found | Did you find the phone? | Yes>!relief; No>locate | the ringing comes from under the sofa cushions / the ring goes straight to voicemail with no sound nearby
!relief | Set up a screen lock if you did not already have one
locate | Sign in to the device finder service [on a computer|place] ~ track it online
?shown | Does the map show the phone's location? | Yes>go; No>lock | a dot appears at the café where {they} had lunch / the service says the device is offline
go | Go to the location [with a friend|manner] or ask the staff there ~ retrieve it > relief
lock | Lock the phone remotely and display [a contact number|manner] ~ secure the device
carrier | Call your mobile carrier [to suspend the SIM|purpose] ~ block the SIM
!police | Report the loss [to the police|place] and keep the reference number

# instruct | descaling a kettle
fill | Fill the kettle halfway [with equal parts water and white vinegar|amount] ~ add the descaling mix
boil | Bring it to the boil and leave it [for an hour|time] ~ heat the solution
empty | Pour the solution away [down the sink|place] ~ tip it out
scrub | Scrub loose scale [with a soft brush|tool] ~ clean inside
?scale | Is there still white scale on the element? | Yes>fill; No>rinse | chalky flakes still cling to the bottom / the metal inside shines
rinse | Boil fresh water twice and discard it [to remove the vinegar taste|purpose] ~ flush it
!dry | Wipe the outside [with a damp cloth|tool]

# wiki | volunteering at a local food bank
find | Search for food banks [in your area|place] [on the council website|place] ~ look for a food bank
contact | Email the coordinator [to ask about volunteer roles|purpose] ~ get in touch
?check | Does the role involve working with children? | Yes>dbs; No>induct | the coordinator suggests the after-school meal club / the coordinator offers a warehouse shift
dbs | Apply for a background check [which takes about two weeks|time] ~ get cleared
induct | Attend a short induction session [on a weekday evening|time] ~ go to training
shift | Sign up for shifts [through the volunteer app|tool] ~ book shifts
!go | Arrive [ten minutes early|time] [wearing closed-toe shoes|manner]

# instruct | setting up a home aquarium
place | Place the tank [on a sturdy stand|place] [away from direct sunlight|place] ~ position the tank
gravel | Rinse the gravel [in a bucket|place] [until the water runs clear|until] ~ wash the substrate
fill | Fill the tank [with dechlorinated water|manner] ~ add the water
filter | Switch on the filter and heater and set it [to 25 degrees|temp] ~ start the equipment
cycle | Let the tank cycle [for four to six weeks|time] ~ wait for the bacteria
?ammonia | Does a test kit still show ammonia? | Yes>wait; No>fish | the test strip turns green for ammonia / the ammonia reads zero
wait | Do a 20 percent water change and test again [in three days|time] ~ keep waiting > ammonia
fish | Add [three or four small fish|amount] [at first|time] ~ introduce fish
!feed | Feed the fish [a small pinch|amount] [once a day|freq]

# wiki | preparing for a long hike
route | Choose a trail [that matches your fitness|manner] ~ pick a route
weather | Check the forecast [the evening before|time] ~ look at the weather
?storm | Is a storm forecast for the day? | Yes>postpone; No>pack | the forecast warns of thunder in the afternoon / the forecast promises clear skies
postpone | Move the hike [to another day|time] ~ reschedule
!home | Tell your group the new date
pack | Pack [two litres of water|amount], snacks, a map and a first-aid kit ~ prepare the backpack
tell | Tell someone your route and [expected return time|manner] ~ share your plans
?blister | Do you feel a hot spot on your foot during the hike? | Yes>tape; No>!summit | {their} heel starts to rub after five kilometres / {their} feet feel fine all day
tape | Stop and cover the spot [with blister plaster|tool] ~ protect your foot
!summit | Enjoy the summit and head back [before dark|time]

# instruct | building a simple bookshelf
measure | Measure the space [with a tape measure|tool] ~ check the available room
cut | Cut two sides and four shelves [from 18 mm plywood|tool] ~ saw the parts
sand | Sand all edges [with 180-grit paper|tool] ~ smooth the pieces
assemble | Glue and screw the shelves [between the sides|place] [using a square|tool] ~ put it together
?wobble | Does the bookshelf wobble? | Yes>back; No>finish | the frame rocks when pushed gently / the frame stands rock solid
back | Nail a thin back panel on [to stiffen the frame|purpose] ~ add a back
finish | Apply [two coats of clear varnish|amount] ~ seal the wood
!anchor | Fix the top [to the wall|place] [with an anti-tip bracket|tool]

# wiki | returning an online purchase
policy | Read the shop's return policy [on its website|place] ~ check the rules
?window | Is it less than 30 days since delivery? | Yes>form; No>contact | the parcel arrived just last week / the parcel arrived two months ago
contact | Email customer service [to ask for an exception|purpose] ~ ask for help
!store | Consider selling the item [online|place] if they refuse
form | Fill in the return form [in your account|place] ~ start the return
pack | Pack the item [in its original box|place] [with all tags attached|manner] ~ wrap it up
label | Print the prepaid label and drop the parcel off [at a post office|place] ~ send it back
?refund | Did the refund arrive within two weeks? | Yes>!done; No>chase | the money shows on {their} card ten days later / three weeks on, nothing has come back
chase | Contact your card provider [with the tracking number|tool] ~ ask the bank
!done | Keep the receipt [until the refund has cleared|time]

# instruct | cooking basmati rice
rinse | Rinse [one cup of rice|amount] [in a sieve|tool] [until the water runs clear|until] ~ wash the rice
soak | Soak the rice [for 20 minutes|time] [to get longer grains|purpose] ~ leave it in water
boil | Bring [one and a half cups of water|amount] to the boil with a pinch of salt ~ heat the water
simmer | Add the rice, cover and simmer [on the lowest heat|manner] [for 12 minutes|time] ~ cook the rice
?water | Is there still water at the bottom of the pan? | Yes>more; No>restg | a layer of liquid bubbles under the rice / the base of the pan is dry
more | Cook [for two more minutes|time] with the lid on ~ give it a bit longer > water
restg | Take it off the heat and leave it covered [for five minutes|time] ~ let it stand
!fluff | Fluff the rice [with a fork|tool] before serving
"""

# Held out (twelfth stretch): procedures only the test sets draw (``--held-out``), written
# after the rules of the eleventh stretch were chosen, on topics the shared ones do not cover, so a
# test set made from them measures how the reasoner does on procedures no rule was fitted to.
HELD_OUT_PROCEDURES = r"""
# wiki | checking in for an international flight
passport | Make sure your passport is valid [for at least six months after the return date|time] ~ check the passport dates
?visa | Does the destination require a visa for your nationality? | Yes>apply; No>online | the embassy website lists {their} country among those needing a visa / the embassy page says visitors from {their} country can enter freely
apply | Apply for the visa [through the embassy's online portal|place] [at least four weeks before departure|time] ~ sort out the visa
online | Check in online [24 hours before the flight|time] and choose a seat ~ do the online check-in
?bags | Are you taking a suitcase that goes in the hold? | Yes>drop; No>security | a large wheeled case stands packed by the door / everything fits into a small backpack
drop | Leave the suitcase [at the bag drop desk|place] [at least an hour before departure|time] ~ hand over the luggage
security | Pass through security with liquids [in a clear plastic bag|manner] ~ go through the security check
?delayed | Is the flight shown as delayed on the departure board? | Yes>voucher; No>!board | the screen says the departure has moved back three hours / the screen shows the flight on time with the gate open
voucher | Ask the airline desk [for a meal voucher|purpose] and keep checking the board ~ ask the airline for help > delayed
!board | Go to the gate [when boarding is announced|time] with your boarding pass ready

# wiki | bathing a dog at home
brush | Brush the coat [thoroughly|manner] [to remove loose hair and tangles|purpose] ~ comb out the fur
ready | Fill the bath with [about 10 cm of lukewarm water|amount] and lay [a rubber mat|tool] on the bottom ~ run the bath
wet | Wet the dog [from the neck down|manner] [with a handheld shower|tool] ~ soak the coat
shampoo | Massage in [a dog shampoo|tool] and keep it away from the eyes and ears ~ lather the dog
?skin | Does the dog have red or flaky skin? | Yes>vet; No>rinse | {they} spots bald, scaly patches on the dog's back / the skin under the fur looks pink and healthy
vet | Finish the bath and book a visit [to the vet|place] [within the week|time] ~ have the skin checked > rinse
rinse | Rinse [until the water runs clear|until] [so no shampoo irritates the skin|purpose] ~ wash out the soap
towel | Squeeze out the water and rub the dog down [with an old towel|tool] ~ dry the dog off
?longcoat | Does the dog have a long or thick coat? | Yes>dryer; No>!treat | the dog is a fluffy collie with a dense undercoat / the dog is a short-haired beagle
dryer | Blow-dry the coat [on the coolest setting|manner] ~ use a hair dryer
!treat | Give the dog a treat [to make bath time a good memory|purpose]

# wiki | introducing a new cat to your home
room | Set up a quiet spare room [with food, water, a litter tray and a bed|tool] ~ prepare a safe room
arrive | Let the cat out of the carrier [in the spare room only|place] and leave it alone [for the first day|time] ~ release the cat in its room
?hiding | Is the cat still hiding after three days? | Yes>wait; No>scent | the cat stays wedged behind the wardrobe and will not come out / the cat walks up to {them} and rubs against {their} legs
wait | Sit quietly in the room [for 20 minutes twice a day|freq] without reaching for the cat ~ give the cat time > hiding
scent | Swap bedding between the new cat and other pets [to mix their smells|purpose] ~ exchange blankets
?pets | Do you already have other pets? | Yes>gate; No>explore | an older cat already lives in the flat / the new cat is the only animal in the house
gate | Let them see each other [through a baby gate|tool] [at feeding times|time] ~ let them meet behind a barrier
?hiss | Do the animals hiss or growl at each other? | Yes>back; No>explore | the older cat flattens its ears and spits / the two cats sniff each other calmly
back | Go back to separate rooms [for a few more days|time] ~ separate them again > gate
!explore | Open the doors and let the cat explore the whole home [while you supervise|manner]

# wiki | giving a cat a pill
calm | Choose a calm moment and wrap the cat [in a towel|tool] [so it cannot scratch|purpose] ~ bundle the cat up
?treatpill | Will the cat eat the pill hidden in a treat? | Yes>!praise; No>open | the cat gulps down the pill pocket in one bite / the cat licks the treat and spits the pill onto the floor
open | Tilt the head back gently and open the jaw [with your thumb and forefinger|tool] ~ open the mouth
drop | Drop the pill [as far back on the tongue as possible|place] ~ place the pill
close | Close the mouth and stroke the throat [until the cat swallows|until] ~ help it swallow
?spit | Did the cat spit the pill out? | Yes>retry; No>water | a wet tablet turns up on the carpet a minute later / {they} checks and the mouth is empty
retry | Wait [five minutes|time] for the cat to settle and try again ~ have another go > open
water | Follow the pill with [a few millilitres of water from a syringe|amount] [so it does not stick in the throat|purpose] ~ give some water
!praise | Praise the cat and offer [its favourite food|tool] as a reward

# wiki | paying off credit card debt
list | List every card [with its balance, interest rate and minimum payment|manner] ~ write down the debts
budget | Work out how much you can pay each month [from your budget|place] ~ set a monthly amount
?transfer | Can you get a zero-interest balance transfer card? | Yes>move; No>minimum | the bank offers {them} a card with no interest for eighteen months / every application comes back declined
move | Move the highest-interest balance [onto the new card|place] and note the date the offer ends ~ transfer the balance
minimum | Pay the minimum [on every card|place] [by the due date|time] ~ make the minimum payments
extra | Put every spare pound toward [the card with the highest interest rate|place] ~ pay extra on the worst card
?cleared | Is that card fully paid off? | Yes>next; No>extra | the statement for that card finally shows a zero balance / there is still a large balance on that card
next | Roll the freed money onto [the card with the next highest rate|place] ~ move to the next card
?alldone | Are all the cards paid off? | Yes>!close; No>extra | the last statement shows nothing owed on any card / two cards still carry balances
!close | Keep one card open for emergencies and cut up the rest [to avoid new debt|purpose]

# wiki | reporting a fraudulent card payment
spot | Check your statement [in the banking app|place] for payments you did not make ~ look over the transactions
?unknown | Is there a payment you do not recognise? | Yes>freeze; No>!nothing | a charge from a shop abroad that {they} has never heard of shows up / every payment matches a receipt in {their} wallet
!nothing | Keep checking your statements [once a week|freq]
freeze | Freeze the card [in the app|place] [straight away|time] ~ block the card
phone | Call the number [on the back of the card|place] and report the payment ~ ring the bank
?refunded | Did the bank refund the money within ten working days? | Yes>newcard; No>complain | the missing money is back in the account a week later / two weeks on, the money still has not come back
complain | Make a formal complaint [in writing|manner] and ask for a final response ~ complain to the bank
?final | Are you happy with the bank's final response? | Yes>newcard; No>ombudsman | the bank agrees to pay everything back with interest / the bank refuses to refund the payment
ombudsman | Take the complaint [to the financial ombudsman|place] [within six months|time] ~ escalate to the ombudsman
!newcard | Activate the replacement card and update any regular payments [with the new number|manner]

# instruct | setting up a wireless printer
unpack | Remove all the orange tape and packing foam [from inside the printer|place] ~ unpack the printer
ink | Insert the ink cartridges [into the matching coloured slots|place] ~ put in the ink
paper | Load [a stack of plain A4 paper|amount] into the tray ~ add paper
wifi | Choose your network [on the printer's touch screen|place] and type the password ~ connect it to the Wi-Fi
?connected | Does the screen show a wireless connection? | Yes>driver; No>router | a green tick appears beside the signal icon / the screen keeps saying the connection failed
router | Move the printer [closer to the router|place] and restart both [to get a stronger signal|purpose] ~ bring it nearer the router > wifi
driver | Install the printer software [from the manufacturer's website|place] on your computer ~ add the driver
test | Print a test page [from the settings menu|place] ~ try printing
?streaks | Does the test page come out streaky or faded? | Yes>clean; No>!done | pale lines run across the whole page / the text and colours come out crisp
clean | Run the head cleaning cycle [from the maintenance menu|place] [up to three times|amount] ~ clean the print heads > test
!done | Save the printer as the default and recycle the packaging

# instruct | backing up a laptop to an external drive
drive | Buy an external drive [at least twice the size of the laptop's storage|amount] ~ get a big enough disk
plug | Plug the drive [into a USB port|place] and wait for it to appear ~ connect the disk
?format | Does the computer ask to format the drive? | Yes>erase; No>tool | a window pops up saying the disk is not readable / the drive opens normally and shows its empty folders
erase | Format the drive [in the disk utility|place] [using the format the laptop recommends|manner] ~ wipe the disk
tool | Open the built-in backup tool and select the drive [as the backup destination|purpose] ~ choose the backup disk
run | Start the first backup and keep the laptop plugged in [until it finishes|until] ~ run the backup
?errors | Did the backup finish without errors? | Yes>restore; No>cable | a message reports that the backup completed / the progress bar stops halfway with a copy error
cable | Try a different cable and port [to rule out a loose connection|purpose] ~ swap the cable > run
restore | Open a few backed-up files [to prove the copy works|purpose] ~ check a file
!schedule | Set the backup to run [every day|freq] and keep the drive [away from the laptop|place]

# instruct | turning on two-step login for an email account
settings | Open the security settings [in your account page|place] ~ go to security settings
method | Choose [an authenticator app|tool] rather than text messages [because it is harder to intercept|purpose] ~ pick the second factor
scan | Scan the QR code [with the app on your phone|tool] ~ link the app
code | Type the six-digit code [before it expires after 30 seconds|time] ~ enter the code
?accepted | Was the code accepted? | Yes>backup; No>clock | the page says two-step login is now on / the page says the code is invalid
clock | Set the phone's clock to update [automatically|manner] [so the codes match the server|purpose] ~ fix the phone time > code
backup | Print the backup codes and store them [in a locked drawer|place] ~ save the spare codes
?devices | Are you signed in on other devices? | Yes>signin; No>!done | an old tablet and a work computer still use the account / the phone is the only device {they} ever uses
signin | Sign in again on each device [with the new code|manner] ~ log back in everywhere
!done | Log out and back in once [to check the new login works|purpose]

# wiki | testing a smoke alarm
ladder | Stand on [a sturdy step ladder|tool] below the alarm ~ get up to the alarm
press | Press and hold the test button [for about five seconds|time] ~ push the test button
?beep | Does the alarm sound loudly? | Yes>clean; No>battery | a piercing shriek fills the hallway / nothing happens, not even a chirp
battery | Replace the battery [with a new 9-volt battery|tool] and test again ~ put in a fresh battery
?works | Does it sound now? | Yes>clean; No>replace | this time the alarm blasts out / the alarm still stays silent
replace | Fit a new alarm [of the same type|manner] [on the same base plate|place] ~ install a new unit
clean | Vacuum the vents [with a soft brush attachment|tool] [to clear dust|purpose] ~ dust the alarm
?age | Is the alarm more than ten years old? | Yes>!newunit; No>!note | the date on the back says it was made twelve years ago / the label shows it was fitted three years ago
!newunit | Replace the alarm [with a sealed ten-year unit|tool] [before the next test|time]
!note | Write the test date [on the calendar|place] and test again [every month|freq]

# wiki | what to do if you smell gas at home
windows | Open all the doors and windows [to let the gas out|purpose] ~ air the house
*spark | Do not switch lights or appliances on or off
valve | Turn off the gas supply [at the meter|place] [by turning the lever a quarter turn|manner] ~ shut off the gas
?strong | Is the smell strong or is anyone feeling dizzy? | Yes>leave; No>call | {their} head starts to spin and the smell is overpowering / the smell is faint and everyone feels fine
leave | Get everyone out of the house [straight away|time] and wait [across the street|place] ~ evacuate
call | Call the gas emergency line [from outside the house|place] ~ ring the emergency number
?engineer | Has the engineer found the leak? | Yes>repair; No>!safe | the engineer traces the smell to a loose pipe behind the cooker / the engineer's meter reads zero everywhere
repair | Have [a registered gas engineer|tool] repair the fault before using gas again ~ get the leak fixed
!safe | Follow the engineer's advice before turning the gas back on

# instruct | childproofing a kitchen
kneel | Get down [to a toddler's eye level|place] and look for hazards ~ crawl around the room
locks | Fit [magnetic cupboard locks|tool] on every low cupboard [that holds cleaning products|place] ~ lock the cupboards
?hob | Does the cooker have knobs at the front? | Yes>covers; No>guard | the oven knobs sit right at toddler height / the controls are on top behind the hob
covers | Clip [knob covers|tool] over the cooker controls ~ cover the knobs
guard | Fit a hob guard [along the front edge|place] [to stop pans being pulled down|purpose] ~ install a guard
?cords | Do appliance cables hang over the worktop edge? | Yes>tidy; No>gate | the kettle lead dangles down by the fridge / every cable is tucked behind the appliances
tidy | Shorten the cables [with cable ties|tool] and push them to the back ~ tidy the leads
!gate | Fit a safety gate [across the kitchen doorway|place] [for times you are cooking|time]

# wiki | preparing for a first 5K race
plan | Pick a race [eight to ten weeks ahead|time] and print a beginner plan ~ choose a race
run | Run [three times a week|freq] [at an easy, chatty pace|manner] ~ go for easy runs
?pain | Do you feel sharp pain in your knees or shins? | Yes>rest; No>long | a stabbing pain shoots up {their} shin on every stride / {their} legs feel tired but nothing hurts
rest | Rest [for three days|time] and ice the sore area [for 15 minutes|time] ~ take a break > run
long | Add one longer run [each week|freq] [up to 5 km|amount] ~ build up the distance
shoes | Replace worn shoes [at least two weeks before the race|time] ~ get new trainers
taper | Cut back to short runs [in the final week|time] [so your legs are fresh|purpose] ~ ease off
?weather | Is race day forecast to be hot? | Yes>water; No>!race | the forecast says 29 degrees by mid-morning / the forecast is cool and cloudy
water | Drink [an extra half litre of water|amount] the evening before and carry a bottle ~ hydrate more
!race | Start the race [at a steady pace|manner] and speed up only [in the last kilometre|place]

# instruct | waxing cross-country skis
clean | Scrape the old wax off the bases [with a plastic scraper|tool] ~ remove the old wax
brush | Brush the bases [from tip to tail|manner] [with a brass brush|tool] ~ open the base
?snow | Is the snow colder than minus five degrees? | Yes>cold; No>warm | the thermometer at the hut reads minus twelve / the snow is wet and slushy near freezing
cold | Choose [a hard green wax|tool] made for cold snow ~ pick the cold wax > iron
warm | Choose [a soft red wax|tool] made for warm snow ~ pick the warm wax
iron | Melt the wax onto the base [with a waxing iron|tool] [at 120 degrees|temp] ~ iron it in
cool | Let the skis cool [for at least 20 minutes|time] [at room temperature|place] ~ leave the wax to set
scrape | Scrape off the extra wax and brush [until the base shines|until] ~ finish the base
!test | Test the glide [on a short gentle slope|place] before a long tour

# instruct | restringing a tennis racket
cut | Cut out the old strings [starting from the centre|manner] [to keep even tension on the frame|purpose] ~ remove the old strings
mount | Clamp the racket [in the stringing machine|place] ~ secure the frame
mains | Thread the main strings [through the centre holes first|manner] ~ string the mains
tension | Pull each main [to the tension printed on the frame|amount] and clamp it ~ tension the mains
?short | Is the string too short to reach the last hole? | Yes>fresh; No>crosses | the end of the string falls a few centimetres short of the last grommet / there is still a long tail to spare
fresh | Start again [with a fresh 12 m set|amount] and leave longer tails ~ begin with a new set > mains
crosses | Weave the cross strings [over and under the mains|manner] ~ string the crosses
knot | Tie off [with a starting knot|manner] at the last hole ~ finish with a knot
?even | Do the strings feel evenly tight when pressed? | Yes>!play; No>straighten | every string springs back the same under {their} palm / one corner of the bed feels slack
straighten | Straighten the strings [with an awl|tool] and check the tension ~ even out the strings
!play | Hit a few balls [to let the strings settle|purpose]

# wiki | registering to vote
eligible | Check that you are old enough [on the election office website|place] ~ confirm you can vote
?moved | Have you moved house since you last registered? | Yes>form; No>check | {they} moved into a new flat across town in the spring / {they} has lived at the same address for years
form | Fill in the online registration form [with your new address|manner] ~ register at the new address
id | Enter your national insurance number [to prove who you are|purpose] ~ give your ID number
check | Look yourself up [on the electoral roll|place] ~ check the register
?listed | Are you on the register? | Yes>postal; No>form | {their} name shows at the right address / {their} name is nowhere on the list
?postal | Will you be away on polling day? | Yes>apply; No>!vote | {they} has a work trip booked that week / {they} will be at home all week
apply | Apply for a postal vote [at least two weeks before the election|time] ~ request a postal vote
!vote | Go to the polling station [printed on your poll card|place] on the day

# wiki | applying for a library card
find | Find your nearest branch [on the council website|place] and check the opening hours ~ look up the library
docs | Bring [a photo ID and a recent utility bill|tool] [as proof of address|purpose] ~ take your documents
?child | Is the card for a child under 16? | Yes>guardian; No>fill | the card is for {their} eight-year-old son / the card is for {them}
guardian | Have a parent or guardian sign the form [on the child's behalf|manner] ~ get a parent's signature
fill | Fill in the short form [at the front desk|place] ~ complete the application
?address | Does the address on the bill match the form? | Yes>card; No>letter | the bill shows the same street and number / the bill still shows {their} old address
letter | Come back [within two weeks|time] with a letter showing the current address ~ bring other proof > fill
card | Pick a PIN [of four digits|amount] for the self-service machines ~ choose a PIN
!borrow | Borrow up to [ten books at a time|amount] [for three weeks|time]

# wiki | renewing car insurance
letter | Read the renewal letter [when it arrives a month before|time] and note the new price ~ check the quote
compare | Get quotes [from at least three comparison sites|place] ~ shop around
?cheaper | Did you find a cheaper policy with the same cover? | Yes>call; No>accept | another insurer quotes 200 less for the same cover / every quote comes back higher
call | Phone your insurer and ask them [to match the cheaper quote|purpose] ~ ask for a better price
?match | Did they match the price? | Yes>accept; No>switch | the agent agrees to drop the price / the agent will not go lower
switch | Buy the new policy and set it [to start the day the old one ends|time] ~ change insurer
cancel | Tell the old insurer [in writing|manner] not to renew ~ stop the old policy > !docs
accept | Let the policy renew and check the details [on the schedule|place] ~ keep the current policy
!docs | Keep the certificate [in the glovebox|place] and the policy documents at home

# wiki | stopping a nosebleed
sit | Sit down and lean forward [slightly|manner] [so blood does not run down the throat|purpose] ~ lean forward
pinch | Pinch the soft part of the nose [just above the nostrils|place] ~ squeeze the nose
hold | Keep pinching [for ten minutes|time] without letting go ~ hold the pressure
?stopped | Has the bleeding stopped? | Yes>rest; No>again | when {they} lets go, no more blood drips / blood still trickles out when {they} lets go
again | Pinch again [for another ten minutes|time] and hold [an ice pack|tool] on the bridge of the nose ~ keep pressing longer
?long | Has it been bleeding for more than 20 minutes? | Yes>!hospital; No>stopped | it has gone on for nearly half an hour / it has only been a quarter of an hour
!hospital | Go to the emergency department [or call an ambulance|manner]
rest | Avoid blowing your nose or bending down [for 24 hours|time] ~ take it easy afterwards
!done | See a doctor if nosebleeds happen [more than once a week|freq]

# wiki | helping someone who is choking
ask | Ask them [if they are choking|manner] and encourage them to cough ~ check they are choking
?cough | Can they cough or speak? | Yes>encourage; No>back | the man wheezes and coughs hard / the woman clutches her throat and makes no sound
encourage | Keep encouraging them to cough and stay with them ~ let them keep coughing
!clear | Check that the object has come out and they breathe normally
back | Give [up to five sharp blows|amount] between the shoulder blades [with the heel of your hand|tool] ~ hit their back
?out | Has the blockage cleared? | Yes>!checkup; No>thrust | a piece of food flies out onto the table / the person still cannot breathe
thrust | Give [up to five abdominal thrusts|amount] [pulling inwards and upwards|manner] ~ do the Heimlich manoeuvre
?still | Is the person still choking? | Yes>ambulance; No>!checkup | the face is turning blue / the person gasps and starts breathing again
ambulance | Call an ambulance and repeat the back blows and thrusts [until help arrives|until] ~ phone for an ambulance
!checkup | Tell them to see a doctor [after any abdominal thrusts|time]

# wiki | treating a sprained ankle
stop | Stop the activity and sit down [to take weight off the foot|purpose] ~ stop moving
?bear | Can you put weight on the foot? | Yes>ice; No>xray | {they} can hobble a few steps without help / {they} cannot stand on the foot at all
xray | Go [to an urgent care centre|place] [for an X-ray|purpose] ~ get it checked for a break
ice | Hold an ice pack wrapped [in a tea towel|tool] on the ankle [for 20 minutes|time] ~ cool the ankle
raise | Keep the ankle raised [above the level of your heart|place] ~ put the foot up
wrap | Wrap the ankle [with an elastic bandage|tool] [firmly but not tightly|manner] ~ bandage it
?swelling | Is the swelling worse after two days? | Yes>doctor; No>move | by the second day the ankle is twice its usual size / the puffiness is going down
doctor | Book a doctor's appointment [within a day|time] ~ see a doctor
!move | Start gentle ankle circles [twice a day|freq] [to get the joint moving again|purpose]

# wiki | treating a bee sting
away | Move away [from the hive area|place] [to avoid more stings|purpose] ~ get clear of the bees
?allergy | Is the person having trouble breathing or swelling in the face? | Yes>pen; No>sting | {their} lips swell up and {their} breathing turns wheezy / apart from a sore red bump {they} feels fine
pen | Use their adrenaline pen [in the outer thigh|place] and call an ambulance ~ give adrenaline
!wait | Lay the person down and wait [for the ambulance|time]
sting | Scrape the sting out [with the edge of a bank card|tool] [within a minute|time] ~ take out the sting
wash | Wash the area [with soap and water|tool] ~ clean the sting
cold | Hold [a cold compress|tool] on it [for ten minutes|time] ~ cool it down
?itch | Is the sting very itchy the next day? | Yes>cream; No>!fine | {they} cannot stop scratching the bump / the bump has almost gone
cream | Apply [an antihistamine cream|tool] [twice a day|freq] ~ use anti-itch cream
!fine | Keep an eye on it [for a few days|time] for signs of infection

# instruct | checking and topping up engine oil
park | Park [on level ground|place] and wait [ten minutes|time] after switching off ~ let the engine rest
dipstick | Pull out the dipstick, wipe it [with a clean rag|tool] and push it back in ~ clean the dipstick
read | Pull it out again and look at where the oil reaches [between the two marks|place] ~ check the level
?low | Is the oil below the minimum mark? | Yes>top; No>colour | the oil only reaches the tip of the dipstick / the oil sits halfway between the two marks
top | Add oil [of the grade in the handbook|manner] [a little at a time|amount] through the filler cap ~ pour in more oil > read
?colour | Is the oil black and gritty? | Yes>change; No>!close | the oil on the rag is thick, black and full of grit / the oil is a clear amber colour
change | Book an oil change [at a garage|place] [within the next 500 km|time] ~ arrange an oil change
!close | Screw the filler cap back on and shut the bonnet

# instruct | replacing windscreen wiper blades
measure | Measure the old blades [with a tape measure|tool] [to buy the right length|purpose] ~ check the size
lift | Lift the wiper arm [away from the glass|place] ~ raise the arm
*glass | Put a towel on the windscreen in case the arm snaps back
?hook | Does the blade fit on a hook? | Yes>tab; No>pin | the end of the arm bends into a U shape / a small pin holds the blade in place
tab | Press the release tab and slide the old blade [down off the hook|manner] ~ unhook the old blade
fit | Slide the new blade onto the hook [until it clicks|until] ~ clip on the new blade > lower
pin | Pull the blade [sideways off the pin|manner] and push the new one on ~ swap the pinned blade
lower | Lower the arm [gently|manner] back onto the glass ~ put the arm down
?smear | Do the wipers leave streaks? | Yes>clean; No>!done | stripes of water stay across the glass / the glass is clear after one sweep
clean | Wipe the rubber [with rubbing alcohol|tool] and test again ~ clean the blades > smear
!done | Recycle the old blades [at a car parts shop|place]

# instruct | washing a car by hand
shade | Park the car [in the shade|place] [so the soap does not dry in streaks|purpose] ~ find a shady spot
rinse | Hose the car down [from the roof downwards|manner] ~ rinse off the dirt
buckets | Fill [two buckets|tool], one with car shampoo and one with clean water ~ prepare the buckets
wash | Wash one panel at a time [with a microfibre mitt|tool], rinsing the mitt [after each panel|freq] ~ soap the car
?tar | Are there tar spots or bird droppings left? | Yes>remover; No>dry | black specks cling along the lower doors / the paint looks clean all round
remover | Dab on [a tar remover|tool] and wipe it off [after a minute|time] ~ treat the stubborn spots
dry | Dry the car [with a soft drying towel|tool] ~ wipe it dry
?wax | Does water still bead on the paint? | Yes>!done; No>waxon | droplets form tight round beads / the water lies flat in sheets on the bonnet
waxon | Apply [a thin coat of car wax|amount] [in small circles|manner] and buff it off ~ wax the paint
!done | Clean the windows [with glass cleaner|tool] last

# instruct | assembling a flat-pack wardrobe
count | Lay out all the parts and check them [against the parts list|manner] ~ check the pieces
?missing | Are any parts missing? | Yes>order; No>frame | the bag of cam locks is nowhere in the box / every screw and panel is there
order | Order the missing parts [from the maker's website|place] and wait for them ~ get replacements
frame | Build the frame [on its back on the floor|place] [with a helper|manner] ~ put the carcass together
back | Nail the back panel on [to keep the frame square|purpose] ~ fix the back
stand | Stand the wardrobe up [with two people|manner] ~ lift it upright
?level | Does the wardrobe rock on the floor? | Yes>feet; No>doors | the wardrobe tips slightly when {they} pushes a corner / it stands firm on the carpet
feet | Adjust the levelling feet [with a screwdriver|tool] ~ level it > level
doors | Hang the doors and adjust the hinges [until the gaps are even|until] ~ fit the doors
!anchor | Fix the top [to the wall|place] [with the strap supplied|tool]

# wiki | cleaning an oven
empty | Take out the racks and soak them [in hot soapy water|place] ~ remove the shelves
paste | Mix [half a cup of baking soda|amount] with a few spoons of water [into a spreadable paste|manner] ~ make a cleaning paste
spread | Spread the paste over the inside [with gloved hands|tool], avoiding the heating elements ~ coat the oven
leave | Leave it [overnight|time] [to loosen the grease|purpose] ~ let it work
wipe | Wipe the paste off [with a damp cloth|tool] ~ clear the paste
?grease | Are there still burnt-on patches? | Yes>vinegar; No>racks | brown crusts still stick to the back wall / the enamel is clean and shiny
vinegar | Spray [white vinegar|tool] on the patches and scrub [with a plastic scraper|tool] ~ scrub the stubborn marks > wipe
racks | Scrub the racks, rinse them and put them back ~ clean the racks
!heat | Run the oven [at 100 degrees|temp] [for 15 minutes|time] to dry it

# wiki | making a will
list | List what you own [including property, savings and pensions|manner] ~ write down your assets
people | Decide who should inherit each item and who will be your executor ~ choose your heirs
?children | Do you have children under 18? | Yes>guardian; No>simple | {they} has two young daughters / {their} children are all grown up
guardian | Name a guardian [for the children|purpose] and ask them first ~ appoint a guardian
?simple | Is your estate straightforward? | Yes>kit; No>solicitor | everything {they} owns is a flat and a savings account / {they} owns a business and property abroad
kit | Write the will [using a will-writing kit|tool] ~ use a template
solicitor | Book a meeting [with a solicitor|place] [to draft the will|purpose] ~ get legal help > sign
sign | Sign it [in front of two witnesses|manner] who are not beneficiaries ~ have it witnessed
!store | Keep the original [somewhere safe|place] and tell the executor where it is

# instruct | making pancakes
mix | Whisk [100 g of flour|amount], two eggs and [300 ml of milk|amount] [until smooth|until] ~ make the batter
rest | Let the batter rest [for 30 minutes|time] ~ leave the batter
heat | Heat a little oil [in a non-stick frying pan|place] [over a medium heat|manner] ~ warm the pan
pour | Pour in [a small ladle of batter|amount] and tilt the pan [to coat the base|purpose] ~ add the batter
?bubbles | Are bubbles popping on the surface and are the edges set? | Yes>flip; No>cook | little holes open all over the top / the top is still wet and shiny
cook | Cook [for another 30 seconds|time] ~ wait a bit longer > bubbles
flip | Flip the pancake [with a thin spatula|tool] ~ turn it over
?more | Is there batter left? | Yes>pour; No>!serve | half the jug is still full / the jug is scraped clean
!serve | Serve the pancakes [with lemon and sugar|tool] while warm

# wiki | applying for a part-time job at a café
cv | Update your CV [with any customer service experience|manner] ~ refresh the CV
visit | Visit the café [in a quiet hour|time] and ask for the manager ~ drop in
?hiring | Are they hiring at the moment? | Yes>hand; No>leave | a help wanted sign hangs in the window / the manager says the team is full
leave | Leave your CV anyway and ask them [to keep it on file|purpose] ~ leave details
!later | Check back [in a month|time]
hand | Hand over your CV and offer to do a trial shift ~ apply in person
?trial | Were you invited to a trial shift? | Yes>shift; No>!later | the manager phones to offer a Saturday trial / a week passes with no call
shift | Arrive [ten minutes early|time] [in plain black clothes|manner] for the trial ~ do the trial shift
!contract | Read the contract [before signing|time] and agree your hours

# instruct | setting up a home router
place | Put the router [in a central, raised spot|place] [away from thick walls|place] ~ position the router
cable | Connect the router [to the wall socket|place] with the cable supplied ~ plug it in
?lights | Is the internet light steady green after five minutes? | Yes>login; No>restart | the globe light glows a calm green / the light keeps flashing orange
restart | Switch the router off [for 30 seconds|time] and on again ~ power cycle it > lights
login | Open the admin page [in a web browser|place] using the details on the sticker ~ sign into the router
password | Change the admin password and the Wi-Fi password [to something long and unique|manner] ~ set new passwords
?slow | Is the connection slow in the far rooms? | Yes>mesh; No>!done | the signal drops to one bar in the back bedroom / videos stream smoothly upstairs too
mesh | Add [a mesh extender|tool] [halfway between the router and the far room|place] ~ boost the signal
!done | Write the new passwords down [in a safe place|place]
"""
