package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/team"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// newTeamCmd is kws team: several hosts' kws servers as one team sharing
// the vault's blocks, the board, project memories and the agents' list.
func newTeamCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "A team of kws servers on several hosts: one vault, board and memory through NATS JetStream",
	}
	cmd.AddCommand(newTeamInitCmd(g), newTeamJoinCmd(g), newTeamStatusCmd(g), newTeamShareCmd(g), newTeamLeaveCmd(g))
	return cmd
}

// memberFlags are the flags init and join share.
type memberFlags struct {
	name, listen, advertise string
	public                  bool
	lease                   time.Duration
}

func (f *memberFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "name", "", "this member's name in the team (default: the host's name)")
	cmd.Flags().StringVar(&f.listen, "listen", team.DefaultListen, "host:port of this member's cluster port")
	cmd.Flags().BoolVar(&f.public, "public", false, "allow a --listen address other machines can reach")
	cmd.Flags().StringVar(&f.advertise, "advertise", "", "host:port other hosts reach this member at, in the join line (default: --listen)")
	cmd.Flags().DurationVar(&f.lease, "lease", 15*time.Second, "how long a board claim outlives its holder's last renewal")
}

// config makes this member's configuration with key, joining route.
func (f *memberFlags) config(key []byte, route string) (team.Config, error) {
	name := f.name
	if name == "" {
		name = team.DefaultMember()
	}
	if err := team.CheckMember(name); err != nil {
		return team.Config{}, err
	}
	if err := team.CheckListen(f.listen, f.public); err != nil {
		return team.Config{}, err
	}
	if f.lease < time.Second {
		return team.Config{}, errors.New("team: --lease must be at least 1s")
	}
	c := team.Config{Key: key, Member: name, Listen: f.listen, LeaseSeconds: int(f.lease / time.Second), Joined: time.Now().UTC()}
	if route != "" {
		c.Routes = []string{route}
	}
	return c, nil
}

// enter saves c as the data dir's team and starts it in the server when
// this runs there.
func (g *globals) enterTeam(out io.Writer, c team.Config) error {
	if _, err := team.Load(g.dataDir); err == nil {
		return fmt.Errorf("team: %s is already in a team (kws team leave first)", g.dataDir)
	} else if !errors.Is(err, team.ErrNoTeam) {
		return err
	}
	if err := c.Save(g.dataDir); err != nil {
		return err
	}
	if g.shared == nil {
		fmt.Fprintln(out, "The kws server of this data dir joins the team when it starts (kws starts it).")
		return nil
	}
	if err := g.shared.StartTeam(); err != nil {
		return fmt.Errorf("team: saved, but the node did not start: %w", err)
	}
	fmt.Fprintln(out, "This kws server is now a member; kws team status shows the team.")
	return nil
}

func newTeamInitCmd(g *globals) *cobra.Command {
	f := &memberFlags{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Start a team here: make its key, listen on the cluster port, print the line other hosts join with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := team.NewKey()
			if err != nil {
				return err
			}
			c, err := f.config(key, "")
			if err != nil {
				return err
			}
			if err := g.enterTeam(cmd.OutOrStdout(), c); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Team %s, member %s, cluster port %s.\nOn another host, run (the line holds the team's key: send it privately):\n\n  kws team join %s\n",
				c.Name(), c.Member, c.Listen, c.Token(f.advertise))
			return nil
		},
	}
	f.add(cmd)
	return cmd
}

func newTeamJoinCmd(g *globals) *cobra.Command {
	f := &memberFlags{}
	var natsURL, teamName string
	cmd := &cobra.Command{
		Use:   "join KEY@HOST:PORT | join --url nats://USER:PASSWORD@HOST:PORT [--team NAME]",
		Short: "Join the team whose line kws team init printed, or a team on an existing NATS cluster with JetStream",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (natsURL != "") {
				return errors.New("team: give the line kws team init printed, or --url for an existing NATS cluster")
			}
			if natsURL != "" {
				c, err := f.config(nil, "")
				if err != nil {
					return err
				}
				c.URL, c.Team, c.Listen = natsURL, teamName, ""
				if err := g.enterTeam(cmd.OutOrStdout(), c); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Joined team %s as %s on the cluster at %s.\n", c.Name(), c.Member, termsafe.OneLine(team.RedactURL(natsURL)))
				return nil
			}
			key, route, err := team.ParseToken(args[0])
			if err != nil {
				return err
			}
			c, err := f.config(key, route)
			if err != nil {
				return err
			}
			if err := g.enterTeam(cmd.OutOrStdout(), c); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Joined team %s as %s (cluster port %s, through %s).\n", c.Name(), c.Member, c.Listen, route)
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&natsURL, "url", "", "an existing NATS cluster with JetStream to meet the team on, instead of a node of this member's own (nats:// or tls://, USER:PASSWORD@ for its credentials)")
	cmd.Flags().StringVar(&teamName, "team", "", "with --url: the team's name on that cluster, the same on every member (default kws)")
	return cmd
}

func newTeamStatusCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the team: its members, their agents and the replication of its streams",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := team.Load(g.dataDir)
			if err != nil {
				return err
			}
			st := team.Status{Team: c.Name(), Member: c.Member, Listen: c.Listen}
			if c.URL != "" {
				st.Listen = team.RedactURL(c.URL)
			}
			running := false
			if g.shared != nil {
				if t := g.shared.Team(); t != nil {
					ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
					st, running = t.Status(ctx), true
					cancel()
				}
			}
			if asJSON || g.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(struct {
					team.Status
					Running bool `json:"running"`
				}{st, running})
			}
			printTeamStatus(cmd.OutOrStdout(), st, running)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printTeamStatus prints a member's view of its team.
func printTeamStatus(w io.Writer, st team.Status, running bool) {
	fmt.Fprintf(w, "team %s · member %s · %s\n", termsafe.OneLine(st.Team), termsafe.OneLine(st.Member), termsafe.OneLine(st.Listen))
	switch {
	case !running:
		fmt.Fprintln(w, "not running: the kws server of this data dir joins the team when it starts")
		return
	case !st.Ready:
		fmt.Fprintln(w, "waiting for a majority of the members: this member works on its own meanwhile")
	}
	fmt.Fprintln(w, "\nmembers:")
	for _, m := range st.Members {
		state := "current"
		switch {
		case m.Offline:
			state = "offline"
		case !m.Current:
			state = fmt.Sprintf("behind by %d", m.Lag)
		}
		if m.Leader {
			state += ", leader"
		}
		fmt.Fprintf(w, "  %-20s %s\n", termsafe.OneLine(m.Name), state)
	}
	if len(st.Streams) > 0 {
		fmt.Fprintln(w, "\nstreams:")
		for _, s := range st.Streams {
			fmt.Fprintf(w, "  %-14s %d of %d replicas current, leader %s, %d messages, %.1f MiB\n",
				s.Name, s.Current, s.Replicas, termsafe.OneLine(s.Leader), s.Messages, float64(s.Bytes)/(1<<20))
		}
	}
	if len(st.Agents) > 0 {
		fmt.Fprintln(w, "\nagents:")
		for _, a := range st.Agents {
			fmt.Fprintf(w, "  %-28s %-12s %s\n", termsafe.OneLine(a.Agent+"@"+a.Member), termsafe.OneLine(a.State), termsafe.OneLine(a.Session))
		}
	}
}

func newTeamShareCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "share ID",
		Short: "Share a sensitive vault block with the team (the others keep it marked sensitive)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var t *team.Team
			if g.shared != nil {
				t = g.shared.Team()
			}
			if t == nil {
				return errors.New("team: the kws server of this data dir runs no team (kws team status)")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if err := t.Share(ctx, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s is the team's now.\n", termsafe.OneLine(args[0]))
			return nil
		},
	}
}

func newTeamLeaveCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "leave",
		Short: "Leave the team: stop this member's node and forget the team's key; the vault keeps every block",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := team.Load(g.dataDir)
			if err != nil {
				return err
			}
			if g.shared != nil {
				g.shared.StopTeam()
			}
			if err := team.Remove(g.dataDir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Left team %s. The others keep the blocks this member shared; its board claims expire.\n", strings.TrimSpace(c.Name()))
			return nil
		},
	}
}

// boardStore is the board commands work on: the team's when this runs in
// a server that is a team's member, else the vault's.
func (g *globals) boardStore(v *vault.Vault) swarm.BoardStore {
	if g.shared != nil {
		return g.shared.BoardStore()
	}
	return v
}
