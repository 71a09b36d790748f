package store

import "github.com/axp-exchange/axp"

// Conversation loads a talk conversation, or nil.
func (t *Tx) Conversation(id string) (*axp.Conversation, error) {
	var c axp.Conversation
	ok, err := getJSON(t.bucket(bConversations), []byte(id), &c)
	if !ok || err != nil {
		return nil, err
	}
	return &c, nil
}

// PutConversation stores a talk conversation.
func (t *Tx) PutConversation(c *axp.Conversation) error {
	c.V = 1
	return putJSON(t.bucket(bConversations), []byte(c.ID), c)
}
