// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title A Chainlink AggregatorV3Interface-compatible price feed for devnets and tests.
/// The owner sets the answer (a new round stamped with the block time) or a whole round with any
/// updatedAt, so tests can make the feed look stale.
contract PriceFeed {
    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;

    address public owner;

    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
        _newRound(initialAnswer, block.timestamp);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "PriceFeed: caller is not the owner");
        _;
    }

    /// @notice A new round with `answer`, updated now.
    function setAnswer(int256 answer) external onlyOwner {
        _newRound(answer, block.timestamp);
    }

    /// @notice A new round with `answer` and an explicit `updatedAt` (seconds), e.g. hours in the past.
    function setRoundData(int256 answer, uint256 updatedAt) external onlyOwner {
        _newRound(answer, updatedAt);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory round = rounds[roundId];
        require(round.updatedAt > 0, "No data present");
        return (roundId, round.answer, round.startedAt, round.updatedAt, roundId);
    }

    /// @notice The latest answer alone (the older AggregatorInterface).
    function latestAnswer() external view returns (int256) {
        return rounds[latestRound].answer;
    }

    function _newRound(int256 answer, uint256 updatedAt) private {
        latestRound += 1;
        rounds[latestRound] = Round(answer, updatedAt, updatedAt);
        emit AnswerUpdated(answer, latestRound, updatedAt);
    }
}
